"""The persistence port the apps share: small versioned JSON documents, partitioned by owner.

Keys follow the owner: `pk = USER#<principal key>`, `sk = <KIND>#<id>`, so another principal's document is
simply not found. Every write is conditional: a new document must not exist yet, a replacement must carry
the version it was read at. Ids are time-ordered, so listing a kind newest-first needs no index.

Limits every caller meets live here too, so that both adapters enforce them alike: an item budget (a write
whose item would exceed it is refused before anything is sent), a quota of live documents per holder (counted
in a ledger written in the same transaction as the document: limits.py), and bounded counters for per-caller
rate limits.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol


class StoreError(Exception):
    """Base of the port's failures."""


class VersionConflict(StoreError):
    """The document changed since it was read; `current` is what is stored now (None if it vanished)."""

    def __init__(self, kind: str, doc_id: str, expected: int, current: Document | None) -> None:
        super().__init__(f"{kind} {doc_id} is no longer at version {expected}")
        self.kind, self.doc_id, self.expected, self.current = kind, doc_id, expected, current


class AlreadyExists(StoreError):
    """`create` found a document of that kind and id already stored; nothing was written."""

    def __init__(self, kind: str, doc_id: str) -> None:
        super().__init__(f"{kind} {doc_id} already exists")
        self.kind, self.doc_id = kind, doc_id


class StoreUnavailable(StoreError):
    """The store failed in a way worth retrying (throttling, timeouts, 5xx), after the adapter's own retries.

    Nothing was written, unless `outcome_unknown`: a write whose answer never came may have landed (whole:
    every write is a single conditional put, so never half).
    """

    def __init__(self, message: str, *, outcome_unknown: bool = False) -> None:
        super().__init__(message)
        self.outcome_unknown = outcome_unknown


class StoreBusy(StoreUnavailable):
    """Writes racing for one shared item (a holder's quota ledger) kept landing first through every attempt the
    adapter made, with backoff; nothing was written. Not an outage: the same write succeeds once the burst passes,
    so the caller is told to retry after `retry_after` seconds."""

    def __init__(self, kind: str, attempts: int, retry_after: int = 1) -> None:
        super().__init__(f"saving {kind} lost the race for its quota ledger {attempts} times")
        self.kind, self.attempts, self.retry_after = kind, attempts, retry_after


class ItemOverBudget(StoreError, ValueError):
    """The item this write would store is larger than the store's item budget; nothing was written."""

    def __init__(self, kind: str, doc_id: str, size: int, budget: int) -> None:
        super().__init__(f"{kind} {doc_id} would take {size} bytes, over the {budget}-byte item budget")
        self.kind, self.doc_id, self.size, self.budget = kind, doc_id, size, budget


class QuotaFull(StoreError, ValueError):
    """`holder` already has `limit` live documents of this kind; nothing was written. `frees_at` is when the
    first of them stops counting (epoch seconds)."""

    def __init__(self, holder: str, kind: str, limit: int, frees_at: int) -> None:
        super().__init__(f"{holder} already has {limit} live {kind} documents")
        self.holder, self.kind, self.limit, self.frees_at = holder, kind, limit, frees_at


class BadCounter(StoreError, ValueError):
    """An `add` asked for something no counter takes: `name` not a plain identifier (counters.COUNTER_NAME), an
    `increment` that is not an integer within COUNT_LIMIT, or more counters than MAX_COUNTERS; nothing was written."""

    def __init__(self, name: str, increment: object, reason: str) -> None:
        super().__init__(f"cannot add {increment!r} to counter {name!r}: {reason}")
        self.name, self.increment, self.reason = name, increment, reason


class CountOutOfRange(StoreError, ValueError):
    """Adding `increment` would take counter `name` of the document past ±COUNT_LIMIT; nothing was written."""

    def __init__(self, kind: str, doc_id: str, name: str, count: int, increment: int) -> None:
        super().__init__(f"{kind} {doc_id}: counter {name} at {count} cannot take {increment:+d} more")
        self.kind, self.doc_id, self.name, self.count, self.increment = kind, doc_id, name, count, increment


class TooManyCounters(StoreError, ValueError):
    """The add would give the document more than `limit` counters; nothing was written."""

    def __init__(self, kind: str, doc_id: str, names: Sequence[str], limit: int) -> None:
        super().__init__(f"{kind} {doc_id} cannot take the new counters {', '.join(names)}: {limit} at most")
        self.kind, self.doc_id, self.names, self.limit = kind, doc_id, list(names), limit


# How long past its expiry a document may stay counted against its holder's quota. A replace that moves the expiry
# past what the ledger holds re-counts the document (one transaction); the slack makes that at most once a day for a
# document that keeps being used (a game played daily), instead of on every write.
COUNT_SLACK_SECONDS = 86_400
# A document that stops being live (a game that ended, a form answered) stays counted this long after the write that
# ends it, then its place is free. Not at once: ended state is kept (and readable) for days, so a place freed at once
# would let one caller keep as much as its request rate allows (a form asked and answered every second, 64 KiB each,
# ~40 GB a week); held an hour, a caller keeps at most its quota's worth of documents an hour.
ENDED_COUNT_SECONDS = 3_600
# The most keys one `get_many` round trip reads (DynamoDB's BatchGetItem takes 100).
GET_MANY_KEYS = 100


@dataclass(frozen=True, slots=True)
class Document:
    """`counts`: named integer counters that `DocumentStore.add` moves atomically, kept beside the JSON `body` (a
    replace writes them as given, so a caller keeps them by building the next version from the one it read).
    `quota_holder`: whose quota the document counts against (None: it counts against none), until
    `counted_until`. Not stored: `recount` marks a replacement whose count must move with it; `released_from`, a
    replacement that is no longer live, whose place in that holder's quota frees an hour later (set in the same
    write)."""

    kind: str
    doc_id: str
    body: dict[str, Any]
    version: int
    created_at: int
    updated_at: int
    expires_at: int
    quota_holder: str | None = None
    counted_until: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    recount: bool = field(default=False, compare=False)
    released_from: str | None = field(default=None, compare=False)

    def counted_for(self, holder: str) -> Document:
        """This (new) document, counted against `holder`'s quota until a slack past its expiry."""
        return replace(self, quota_holder=holder, counted_until=self.expires_at + COUNT_SLACK_SECONDS)

    def next(self, body: dict[str, Any], *, now: int, expires_at: int, live: bool = True) -> Document:
        """The next version. `live` False: the document has stopped being live (a game ended, a form answered), so
        its place in its holder's quota frees an hour after this write, and it counts against none from then on."""
        holder, counted_until, recount, released_from = self.quota_holder, self.counted_until, False, None
        if not live and holder is not None:
            holder, counted_until, released_from = None, 0, self.quota_holder
        elif holder is not None and not (counted_until - COUNT_SLACK_SECONDS <= expires_at <= counted_until):
            # Kept longer than counted (or finished early): the count follows the new expiry.
            counted_until, recount = expires_at + COUNT_SLACK_SECONDS, True
        return replace(
            self,
            body=body,
            version=self.version + 1,
            updated_at=now,
            expires_at=expires_at,
            quota_holder=holder,
            counted_until=counted_until,
            recount=recount,
            released_from=released_from,
        )


class DocumentStore(Protocol):
    """Every write is refused with ItemOverBudget, before anything is sent, when its item would exceed the
    store's item budget."""

    def get(self, owner: str, kind: str, doc_id: str) -> Document | None:
        """A strongly consistent read."""
        ...

    def create(self, owner: str, doc: Document, *, quota: int | None = None) -> None:
        """Raises AlreadyExists if the id is taken. A document with a `quota_holder` and a `quota` is counted in
        that holder's ledger of live documents of its kind, in the same transaction: QuotaFull (nothing written)
        when `quota` of them are live already. Concurrent creates for one holder all land (one after another);
        only a burst that outlasts the adapter's retries fails, with StoreBusy (nothing written)."""
        ...

    def replace(self, owner: str, doc: Document, expected_version: int) -> None:
        """Write `doc` only if the stored version is still `expected_version`; else VersionConflict. A `recount`
        moves the document's count in its holder's ledger in the same transaction, and a document `released_from` a
        holder has its entry in that holder's ledger cut to an hour in the same transaction (both conditional: the
        place is given back if and only if the document's write lands)."""
        ...

    def get_many(self, keys: Sequence[tuple[str, str, str]]) -> list[Document | None]:
        """Strongly consistent reads of (owner, kind, doc_id) keys, in one round trip per GET_MANY_KEYS of them:
        each document or None, in the keys' order. A read unit per item, as many `get`s would cost."""
        ...

    def newest(self, owner: str, kind: str, limit: int) -> list[Document]:
        """The owner's documents of a kind, newest first."""
        ...

    def add(
        self,
        owner: str,
        kind: str,
        doc_id: str,
        increments: Mapping[str, int],
        *,
        expires_at: int | None = None,
    ) -> Document:
        """Add each increment to the document's counter of that name (a missing counter starts at 0) in one atomic
        write that needs no version: racing adds all land, none lost. The version moves, so a replace built on an
        earlier read is a VersionConflict. A missing document is created (version 1, body `{}`) if
        `expires_at` is given, to expire then, else the add is a VersionConflict with nothing current; an existing
        document keeps its expiry. Returns the document as this add left it.

        Refused, nothing written: BadCounter (a name not an identifier, an increment not an int within
        COUNT_LIMIT, more than MAX_COUNTERS names), CountOutOfRange (a count would pass ±COUNT_LIMIT),
        TooManyCounters (the document would hold more than MAX_COUNTERS), ItemOverBudget (the document's body
        leaves less than counters.add_room() bytes: the room its counters could take at their bounds)."""
        ...

    def delete(self, owner: str, doc: Document) -> None:
        """Remove the document, whatever its version (nothing happens if it is gone already). A `doc` (as read)
        counted against a holder's quota leaves that holder's ledger in the same transaction, so its place is free at
        once: the document no longer exists to be kept."""
        ...

    def every(self, owner: str, kind: str, limit: int, *, after: str | None = None) -> list[Document]:
        """Up to `limit` of the owner's documents of a kind, newest first, read page by page (what an export or an
        erasure walks); fewer than `limit` means there are no more. `after`: only those that sort after that id in
        this order (older ones), whether or not a document of that id still exists: where a paged export resumes."""
        ...

    def hit(self, counter: str, window: str, limit: int, expires_at: int) -> bool:
        """Count one more on `counter`'s `window` if it holds fewer than `limit`; False (nothing counted) if not.
        The window's count is kept until `expires_at`."""
        ...


def time_ordered_id(now_ms: int | None = None) -> str:
    """12 hex digits of milliseconds then 10 random hex digits: sortable by creation, unguessable enough."""
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    return f"{ms:012x}{os.urandom(5).hex()}"
