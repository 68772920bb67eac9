"""In-memory DocumentStore for tests and demos: the same contract as the DynamoDB adapter, in one process."""

from __future__ import annotations

import copy
import threading

from widget_mcp.storage.documents import AlreadyExists, Document, VersionConflict


class InMemoryDocumentStore:
    def __init__(self) -> None:
        self._items: dict[tuple[str, str, str], Document] = {}
        self._lock = threading.Lock()

    def get(self, owner: str, kind: str, doc_id: str) -> Document | None:
        with self._lock:
            doc = self._items.get((owner, kind, doc_id))
        return copy.deepcopy(doc)

    def create(self, owner: str, doc: Document) -> None:
        key = (owner, doc.kind, doc.doc_id)
        with self._lock:
            if key in self._items:
                raise AlreadyExists(doc.kind, doc.doc_id)
            self._items[key] = copy.deepcopy(doc)

    def replace(self, owner: str, doc: Document, expected_version: int) -> None:
        key = (owner, doc.kind, doc.doc_id)
        with self._lock:
            current = self._items.get(key)
            if current is None or current.version != expected_version:
                raise VersionConflict(doc.kind, doc.doc_id, expected_version, copy.deepcopy(current))
            self._items[key] = copy.deepcopy(doc)

    def newest(self, owner: str, kind: str, limit: int) -> list[Document]:
        with self._lock:
            docs = [d for (o, k, _), d in self._items.items() if o == owner and k == kind]
        docs.sort(key=lambda d: d.doc_id, reverse=True)
        return copy.deepcopy(docs[:limit])
