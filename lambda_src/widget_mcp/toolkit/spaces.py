"""Shared state: a space whose members are identities. Its owner creates it and adds or removes members by their
member id (their principal key, e.g. `openai:<subject>` or `oauth:<sub>`); a member enters it and gets a StateOwner
whose partition is the space's, so an app keeps shared documents with the same calls as its own.

Who is let in is decided on every call by one strongly consistent read of the space's document, so a removed member
is refused from the next call on. A caller who is not a member (a stranger, a removed member, an id that never
existed, a caller without identity) gets `space_not_found`, worded alike, so nobody learns that a space exists. The
space and its documents live in the partition `space:<id>`, which no principal's or capability's partition equals.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from widget_mcp.storage.documents import Document, DocumentStore, StoreBusy, VersionConflict
from widget_mcp.toolkit.errors import IdentityRequired, ToolError
from widget_mcp.toolkit.ownership import StateOwner, capability_id
from widget_mcp.toolkit.space_members import Memberships

KIND = "space"
PARTITION_PREFIX = "space:"
MAX_MEMBERS = 50
TTL_DAYS = 90
QUOTA_SPACES = 20
# What a member id looks like: an identified principal's key (toolkit/principal.py), never an anonymous one.
MEMBER_ID = re.compile(r"^(oauth|signed|openai|host):[A-Za-z0-9_.:@/+=\-]{1,200}$")
_WRITE_ATTEMPTS = 3


class SpaceNotFound(ToolError):
    """No space of that id has the caller as a member: one that does not exist answers the same."""

    code = "space_not_found"

    def __init__(self, space_id: str) -> None:
        super().__init__(
            f"There is no space {space_id} that you belong to. Check the id, or ask its owner to add your member id."
        )


class NotSpaceOwner(ToolError):
    """A member other than the owner tried to add or remove someone else."""

    code = "not_space_owner"

    def __init__(self) -> None:
        super().__init__("Only the space's owner can add or remove other members.")


class SpaceFull(ToolError):
    """The space already holds its most members."""

    code = "space_full"

    def __init__(self) -> None:
        super().__init__(f"A space holds at most {MAX_MEMBERS} members. Remove one first.")


class InvalidMember(ToolError):
    """The text given as a member id is not one: an identified principal's key (`member_id`) is."""

    code = "invalid_member"

    def __init__(self, member: str) -> None:
        super().__init__(
            f"{member[:80]!r} is not a member id. A member id is what its user's my-member-id call answers, such as "
            "openai:… or oauth:…; users without sign-in or a host identity have none."
        )


@dataclass(frozen=True, slots=True)
class Space:
    """A shared space as stored: its owner and members, and the partition its documents live in (`partition`)."""

    space_id: str
    name: str
    owner: str
    members: tuple[str, ...]
    document: Document

    @property
    def partition(self) -> str:
        return PARTITION_PREFIX + self.space_id

    def admits(self, key: str) -> bool:
        return key == self.owner or key in self.members


def member_id(owner: StateOwner) -> str:
    """The caller's member id, what it gives a space's owner to be added; IdentityRequired without identity."""
    if owner.user_key is None:
        raise IdentityRequired("Spaces")
    return owner.user_key


def _space(doc: Document) -> Space:
    body = doc.body
    return Space(doc.doc_id, body["name"], body["owner"], tuple(body["members"]), doc)


class Spaces:
    """Spaces on the store: one document each, `{name, owner, members}`, kept TTL_DAYS after its last change. Each
    counts against its owner's `quota` of live spaces (QuotaExceeded past it)."""

    def __init__(
        self,
        store: DocumentStore,
        clock: Callable[[], float] = time.time,
        ttl_days: int = TTL_DAYS,
        quota: int = QUOTA_SPACES,
    ) -> None:
        self._store, self._clock, self._ttl, self._quota = store, clock, ttl_days * 86_400, quota
        self._members = Memberships(store, self._ttl, clock)

    def _kept(self, space: Space) -> Space:
        self._members.keep(space.space_id, space.name, space.owner, space.members, space.document.expires_at)
        return space

    def create(self, owner: StateOwner, name: str) -> Space:
        """A new space owned by the caller, with no other member yet."""
        key = member_id(owner)
        now = int(self._clock())
        space_id = capability_id()
        body = {"name": name, "owner": key, "members": []}
        doc = Document(KIND, space_id, body, 1, now, now, now + self._ttl)
        # Kept in the space's own partition, counted against its creator's quota of live spaces.
        stored = replace(owner, shared=PARTITION_PREFIX + space_id).create(
            self._store, doc, quota=self._quota, what="live spaces"
        )
        return self._kept(_space(stored))

    def get(self, owner: StateOwner, space_id: str) -> Space:
        """The space, if the caller is its owner or a member; else SpaceNotFound."""
        if owner.user_key is None or not space_id:
            raise SpaceNotFound(space_id)
        doc = self._store.get(PARTITION_PREFIX + space_id, KIND, space_id)
        if doc is None or doc.expires_at <= self._clock() or not _space(doc).admits(owner.user_key):
            raise SpaceNotFound(space_id)
        return _space(doc)

    def enter(self, owner: StateOwner, space_id: str) -> StateOwner:
        """The caller as owner of the space's shared documents: `partition()` is the space's, quotas stay its own."""
        space = self.get(owner, space_id)
        return replace(owner, shared=space.partition)

    def add_member(self, owner: StateOwner, space_id: str, member: str) -> Space:
        if not MEMBER_ID.match(member):
            raise InvalidMember(member)

        def added(space: Space) -> tuple[str, ...]:
            if member == space.owner or member in space.members:
                return space.members
            if len(space.members) >= MAX_MEMBERS:
                raise SpaceFull()
            return (*space.members, member)

        return self._change(owner, space_id, added)

    def remove_member(self, owner: StateOwner, space_id: str, member: str) -> Space:
        """The owner removes anyone but itself; a member may remove itself (leave)."""
        left = self._change(owner, space_id, lambda space: tuple(m for m in space.members if m != member), member)
        if member != left.owner:
            self._members.drop(member, space_id)
        return left

    def _change(
        self,
        owner: StateOwner,
        space_id: str,
        members: Callable[[Space], tuple[str, ...]],
        leaving: str | None = None,
    ) -> Space:
        space = self.get(owner, space_id)
        for _ in range(_WRITE_ATTEMPTS):
            if owner.user_key != space.owner and leaving != owner.user_key:
                raise NotSpaceOwner()
            now = int(self._clock())
            body = {"name": space.name, "owner": space.owner, "members": list(members(space))}
            doc = space.document.next(body, now=now, expires_at=now + self._ttl)
            try:
                self._store.replace(space.partition, doc, expected_version=space.document.version)
            except VersionConflict as exc:  # another change landed first: apply this one to what is stored now
                if exc.current is None:
                    raise SpaceNotFound(space_id) from exc
                space = _space(exc.current)
                continue
            return self._kept(_space(doc))
        raise StoreBusy(KIND, _WRITE_ATTEMPTS)  # changed under it every time: nothing written, retry shortly

    def erase_member(self, key: str, kinds: Sequence[str], budget: int) -> tuple[dict[str, int], bool]:
        """A user's erasure, in spaces: each space `key` owns is deleted with its documents of `kinds`, it leaves each
        space it is a member of (other members and their documents stay), and its membership documents go. At most
        `budget` deletions: how many of each kind, and whether nothing of it is left in any space."""
        erased: dict[str, int] = {}

        def gone(partition: str, doc: Document) -> bool:
            if sum(erased.values()) >= budget:
                return False
            self._store.delete(partition, doc)  # a counted space leaves its owner's quota ledger with it
            erased[doc.kind] = erased.get(doc.kind, 0) + 1
            return True

        for pointer in self._members.of(key, budget + 1):
            stored = self._store.get(PARTITION_PREFIX + pointer.doc_id, KIND, pointer.doc_id)
            space = _space(stored) if stored is not None else None
            if space is not None and space.owner == key:
                for kind in kinds:
                    for doc in self._store.every(space.partition, kind, budget + 1 - sum(erased.values())):
                        if not gone(space.partition, doc):
                            return erased, False
                if not gone(space.partition, space.document):
                    return erased, False
            elif space is not None and key in space.members:
                with contextlib.suppress(SpaceNotFound):  # expired or deleted meanwhile: nothing to leave
                    self.remove_member(StateOwner(key), space.space_id, key)
            if not gone(key, pointer):
                return erased, False
        return erased, True
