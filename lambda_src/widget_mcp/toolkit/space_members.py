"""Where a user's spaces are found from the user: a membership document in each member's own partition (kind
`space_membership`, id the space's, body its role and the space's name), so an export lists them and an erasure
reaches them without scanning the table.

Spaces.create and every membership change keep them: the owner's and each member's is written when missing or when it
would expire before the space (it is then kept TTL_DAYS past the space's own expiry, so it is rewritten at most once
per that period, after one batched read of all of them); a removed member's is deleted. A space made before these
documents existed gets them at its next membership change."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from widget_mcp.storage.documents import AlreadyExists, Document, DocumentStore, VersionConflict

MEMBERSHIP = "space_membership"


class Memberships:
    def __init__(self, store: DocumentStore, ttl_seconds: int, clock: Callable[[], float] = time.time) -> None:
        self._store, self._ttl, self._clock = store, ttl_seconds, clock

    def keep(self, space_id: str, name: str, owner: str, members: Sequence[str], until: int) -> None:
        """Every holder's membership document for a space that lives `until`, written where missing or stale."""
        holders = [owner, *members]
        found = self._store.get_many([(holder, MEMBERSHIP, space_id) for holder in holders])
        now = int(self._clock())
        for holder, doc in zip(holders, found, strict=True):
            body = {"role": "owner" if holder == owner else "member", "name": name}
            if doc is not None and doc.expires_at >= until and doc.body == body:
                continue
            try:
                if doc is None:
                    self._store.create(holder, Document(MEMBERSHIP, space_id, body, 1, now, now, until + self._ttl))
                else:
                    self._store.replace(holder, doc.next(body, now=now, expires_at=until + self._ttl), doc.version)
            except (AlreadyExists, VersionConflict):
                continue  # a concurrent change of the same space wrote it just now

    def drop(self, holder: str, space_id: str) -> None:
        doc = self._store.get(holder, MEMBERSHIP, space_id)
        if doc is not None:
            self._store.delete(holder, doc)

    def of(self, holder: str, limit: int) -> list[Document]:
        return self._store.every(holder, MEMBERSHIP, limit)
