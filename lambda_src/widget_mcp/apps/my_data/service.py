"""Export and erasure of one identified user's documents, app by app, over the kinds each app declares."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from widget_mcp.storage.documents import Document, DocumentStore

# The most documents one call reads or deletes: a call stays well inside the function's timeout (a delete is one
# write, a counted one a read and a transaction: ~10 ms each), and a user with more is told to call again.
BATCH = 500


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

    def export(self, partition: str) -> tuple[list[Exported], bool]:
        """The user's documents (newest first within each kind), and whether that is all of them."""
        found: list[Exported] = []
        for app, kinds in self._kinds().items():
            for kind in kinds:
                docs = self._store.every(partition, kind, BATCH + 1 - len(found))
                found.extend(exported(app, doc) for doc in docs)
                if len(found) > BATCH:
                    return found[:BATCH], False
        return found, True

    def erase(self, partition: str) -> tuple[dict[str, int], bool]:
        """Delete the user's documents: how many of each kind, and whether none is left."""
        erased: dict[str, int] = {}
        done = 0
        for kinds in self._kinds().values():
            for kind in kinds:
                room = BATCH - done
                docs = self._store.every(partition, kind, room + 1)
                for doc in docs[:room]:
                    self._store.delete(partition, doc)
                    erased[kind] = erased.get(kind, 0) + 1
                done += min(len(docs), room)
                if len(docs) > room:
                    return erased, False
        return erased, True
