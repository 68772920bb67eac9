"""The Team List app's items on the store's port (`DocumentStore`: DynamoDB when deployed, moto under `make dev`,
in memory in unit tests). One document per item, in its list's (the space's) partition."""

from __future__ import annotations

from widget_mcp.storage.documents import Document, DocumentStore
from widget_mcp.toolkit.ownership import StateOwner

KIND = "list_item"
TTL_SECONDS = 30 * 86_400  # kept 30 days after its last change
MAX_LISTED = 100


class Items:
    def __init__(self, store: DocumentStore) -> None:
        self.store = store

    def create(self, owner: StateOwner, item_id: str, body: dict[str, object], *, now: int, quota: int) -> Document:
        """Counted against the caller's live items: QuotaExceeded past `quota`, TooLarge past the item budget."""
        doc = Document(KIND, item_id, body, 1, now, now, now + TTL_SECONDS)
        return owner.create(self.store, doc, quota=quota, what="live list items")

    def get(self, owner: StateOwner, item_id: str) -> Document | None:
        return self.store.get(owner.partition(item_id), KIND, item_id)

    def newest(self, owner: StateOwner, list_id: str) -> list[Document]:
        # inside a space every id maps to the space's partition, the list's id included
        return self.store.newest(owner.partition(list_id), KIND, MAX_LISTED)

    def replace(self, owner: StateOwner, doc: Document, body: dict[str, object], *, now: int) -> Document:
        """The next version, written only if `doc` is still the stored one: VersionConflict otherwise."""
        new = doc.next(body, now=now, expires_at=now + TTL_SECONDS)
        self.store.replace(owner.partition(doc.doc_id), new, expected_version=doc.version)
        return new
