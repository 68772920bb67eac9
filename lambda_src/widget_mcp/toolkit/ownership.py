"""Whose state a call reaches: an identified user's own partition, or, for a caller without identity, the one
partition that a capability id names.

Hosts other than ChatGPT (Claude, VS Code, the ext-apps reference host) send no user hint with the calls their
widgets make. Rather than refuse them, state created without identity gets an unguessable id, and that id alone
is the key to it: its partition is derived from the id, so only a caller without identity who holds the id
reaches it, and nothing can be listed. Identities never cross: an identified caller's partition is its principal
key, which never equals a capability partition.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from widget_mcp.storage.documents import ItemOverBudget, QuotaFull
from widget_mcp.toolkit.errors import IdentityRequired, QuotaExceeded, TooLarge
from widget_mcp.toolkit.principal import Principal

if TYPE_CHECKING:
    from widget_mcp.storage.documents import Document, DocumentStore

AnonymousState = Literal["capability", "refuse"]

# 18 random bytes: 144 bits, 24 URL-safe characters, beyond guessing however many calls are made.
CAPABILITY_BYTES = 18
CAPABILITY_ID_LENGTH = 24
_CAPABILITY_PARTITION = "capability:"


def capability_id() -> str:
    """A new unguessable id (144 random bits) for state made without identity: holding it is the only way in."""
    return secrets.token_urlsafe(CAPABILITY_BYTES)


def caller_key(principal: Principal, source: str | None) -> str:
    """Who per-caller limits count: an identified principal by its key, a caller without identity by its source
    address (it can mint capability ids at will, but not addresses)."""
    return principal.key if not principal.is_anonymous else f"source:{source or 'unknown'}"


@dataclass(frozen=True, slots=True)
class StateOwner:
    """`user_key` is the principal's key; None for a caller without identity, who holds capability ids and is
    counted by its `source` address. `shared`: the partition of a space the caller was let into (toolkit/spaces.py),
    where its documents then go, still counted against the caller's own quota."""

    user_key: str | None
    source: str | None = None
    shared: str | None = None

    @property
    def quota_holder(self) -> str:
        """Whose quota of live state a new game or form counts against."""
        return self.user_key if self.user_key is not None else f"source:{self.source or 'unknown'}"

    @property
    def by_capability(self) -> bool:
        return self.user_key is None

    @property
    def can_list(self) -> bool:
        """Listing needs a partition of one's own; capability holders have one partition per id."""
        return self.user_key is not None

    def partition(self, doc_id: str) -> str:
        """The store partition `doc_id` lives in for this owner."""
        if self.shared is not None:
            return self.shared
        if self.user_key is not None:
            return self.user_key
        return _CAPABILITY_PARTITION + doc_id

    def create(
        self, store: DocumentStore, doc: Document, *, quota: int, what: str, ending: str | None = None
    ) -> Document:
        """Store new `doc` in this owner's partition, counted against its quota of live documents of the doc's kind
        (an app's QUOTA_LIVE_ITEMS setting) in the same write: past `quota`, QuotaExceeded naming `what` ("live
        polls"; `ending` says how to free a place sooner), over the item budget TooLarge; nothing written either way.
        Returns the document as stored (counted)."""
        counted = doc.counted_for(self.quota_holder)
        try:
            store.create(self.partition(doc.doc_id), counted, quota=quota)
        except QuotaFull as exc:
            raise QuotaExceeded(what, exc.limit, exc.frees_at, ending) from exc
        except ItemOverBudget as exc:
            raise TooLarge(doc.kind, exc.size, exc.budget, "Store less in it.") from exc
        return counted


def state_owner(
    principal: Principal, anonymous_state: AnonymousState, what: str, source: str | None = None
) -> StateOwner:
    """The owner of the state a call touches; raises IdentityRequired when anonymous state is refused."""
    if not principal.is_anonymous:
        return StateOwner(principal.key)
    if anonymous_state == "capability":
        return StateOwner(None, source)
    raise IdentityRequired(what)
