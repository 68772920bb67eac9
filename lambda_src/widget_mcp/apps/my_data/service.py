"""Export and erasure of one identified user's documents, app by app, over the kinds each app declares."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from widget_mcp.apps.my_data.cursor import Position
from widget_mcp.storage.documents import Document, DocumentStore
from widget_mcp.toolkit.space_members import MEMBERSHIP
from widget_mcp.toolkit.spaces import Spaces

# The most documents one export reads, and one erasure deletes: a call stays well inside the function's 20 s timeout
# (a delete is one request, a counted one a read and a transaction: 200 of those about 4 s at 10 ms a request), and a
# user with more is told to call again.
BATCH = 500
ERASE_BATCH = 200
# The most JSON one export carries (its text repeats it): well under Lambda's 6 MB response, whatever the items' size.
EXPORT_BYTES = 1024 * 1024
# The export names the spaces a user owns or belongs to (toolkit/spaces.py) as this app's items.
SPACES = "spaces"


@dataclass(frozen=True)
class Exported:
    app: str
    kind: str
    doc_id: str
    created_at: int
    updated_at: int
    expires_at: int
    body: dict[str, Any]
    counts: dict[str, int]


def exported(app: str, doc: Document) -> Exported:
    return Exported(app, doc.kind, doc.doc_id, doc.created_at, doc.updated_at, doc.expires_at, doc.body, doc.counts)


class MyData:
    """`kinds` answers, when first needed, each app's declared kinds by the app's name (the registry's books)."""

    def __init__(self, store: DocumentStore, kinds: Callable[[], Mapping[str, tuple[str, ...]]]) -> None:
        self._store, self._kinds = store, kinds
        self._spaces = Spaces(store)

    def _exported_kinds(self) -> dict[str, tuple[str, ...]]:
        return {**self._kinds(), SPACES: (MEMBERSHIP,)}

    def knows(self, position: Position) -> bool:
        return position.kind in self._exported_kinds().get(position.app, ())

    def export(self, partition: str, start: Position | None = None) -> tuple[list[Exported], Position | None]:
        """The user's documents, app by app and kind by kind, newest first within each kind, from `start` (the
        beginning if None): them, and where the next call resumes (None: that was the last of them)."""
        found: list[Exported] = []
        size = 0
        skipping = start is not None
        for app, kinds in self._exported_kinds().items():
            for kind in kinds:
                after = None
                if start is not None and skipping:
                    if (app, kind) != (start.app, start.kind):
                        continue  # passed on an earlier page
                    skipping, after = False, start.after
                for doc in self._store.every(partition, kind, BATCH + 1 - len(found), after=after):
                    size += len(json.dumps([doc.body, doc.counts], ensure_ascii=False).encode()) + 200
                    if len(found) == BATCH or size > EXPORT_BYTES:
                        last = found[-1]  # an item is at most 400 KB, so the first always fits
                        return found, Position(last.app, last.kind, last.doc_id)
                    found.append(exported(app, doc))
        return found, None

    def erase(self, partition: str) -> tuple[dict[str, int], bool]:
        """Delete the user's documents, its spaces' and its memberships (Spaces.erase_member) first: how many of each
        kind, and whether none is left."""
        every_kind = tuple(dict.fromkeys(kind for kinds in self._kinds().values() for kind in kinds))
        erased, complete = self._spaces.erase_member(partition, every_kind, ERASE_BATCH)
        if not complete:
            return erased, False
        done = sum(erased.values())
        for kinds in self._kinds().values():
            for kind in kinds:
                room = ERASE_BATCH - done
                docs = self._store.every(partition, kind, room + 1)
                for doc in docs[:room]:
                    self._store.delete(partition, doc)
                    erased[kind] = erased.get(kind, 0) + 1
                done += min(len(docs), room)
                if len(docs) > room:
                    return erased, False
        return erased, True
