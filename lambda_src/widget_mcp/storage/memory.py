"""In-memory DocumentStore for tests and demos: the same contract as the DynamoDB adapter, in one process.

Items are sized by the DynamoDB layout and rule (items.py), so the item budget refuses the same writes here.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from widget_mcp.storage.counters import added, check_room, checked_increments
from widget_mcp.storage.documents import AlreadyExists, Document, ItemOverBudget, VersionConflict
from widget_mcp.storage.items import DYNAMODB_ITEM_LIMIT, item_size, to_item
from widget_mcp.storage.ledger import Ledger


class InMemoryDocumentStore:
    """The state store in this process's memory, behind the same port as DynamoDB's and held to the same contract
    (tests/functional/test_document_store_contract.py): for tests, and for an app's warm-up."""

    def __init__(self, *, max_item_bytes: int = DYNAMODB_ITEM_LIMIT, clock: Callable[[], float] = time.time) -> None:
        self._items: dict[tuple[str, str, str], Document] = {}
        self._ledgers: dict[tuple[str, str], Ledger] = {}
        self._counters: dict[tuple[str, str], tuple[int, int]] = {}
        self._lock = threading.Lock()
        self._budget = max_item_bytes
        self._clock = clock

    def _check_budget(self, owner: str, doc: Document) -> None:
        size = item_size(to_item(owner, doc))
        if size > self._budget:
            raise ItemOverBudget(doc.kind, doc.doc_id, size, self._budget)

    def get(self, owner: str, kind: str, doc_id: str) -> Document | None:
        with self._lock:
            doc = self._items.get((owner, kind, doc_id))
        return copy.deepcopy(doc)

    def create(self, owner: str, doc: Document, *, quota: int | None = None) -> None:
        self._check_budget(owner, doc)
        key = (owner, doc.kind, doc.doc_id)
        with self._lock:
            if key in self._items:
                raise AlreadyExists(doc.kind, doc.doc_id)
            if doc.quota_holder is not None and quota is not None:
                ledger_key = (doc.quota_holder, doc.kind)
                ledger = self._ledgers.get(ledger_key, Ledger(doc.quota_holder, doc.kind))
                now = int(self._clock())
                self._ledgers[ledger_key] = ledger.admit(doc.doc_id, doc.counted_until, quota, now)
            self._items[key] = copy.deepcopy(doc)

    def replace(self, owner: str, doc: Document, expected_version: int) -> None:
        self._check_budget(owner, doc)
        key = (owner, doc.kind, doc.doc_id)
        with self._lock:
            current = self._items.get(key)
            if current is None or current.version != expected_version:
                raise VersionConflict(doc.kind, doc.doc_id, expected_version, copy.deepcopy(current))
            if doc.released_from is not None:
                ledger_key = (doc.released_from, doc.kind)
                ledger = self._ledgers.get(ledger_key, Ledger(doc.released_from, doc.kind))
                self._ledgers[ledger_key] = ledger.release(doc.doc_id, int(self._clock()))
            elif doc.recount and doc.quota_holder is not None:
                ledger_key = (doc.quota_holder, doc.kind)
                ledger = self._ledgers.get(ledger_key, Ledger(doc.quota_holder, doc.kind))
                self._ledgers[ledger_key] = ledger.recount(doc.doc_id, doc.counted_until, int(self._clock()))
            self._items[key] = copy.deepcopy(doc)

    def add(
        self,
        owner: str,
        kind: str,
        doc_id: str,
        increments: Mapping[str, int],
        *,
        expires_at: int | None = None,
    ) -> Document:
        wanted = checked_increments(increments)
        key = (owner, kind, doc_id)
        with self._lock:
            now = int(self._clock())
            current = self._items.get(key)
            if current is None:
                if expires_at is None:
                    raise VersionConflict(kind, doc_id, 0, None)
                new = Document(kind, doc_id, {}, 1, now, now, expires_at, counts=wanted)
                self._check_budget(owner, new)
            else:
                counts = added(current, wanted)
                check_room(owner, current, len(to_item(owner, current)["body"]["S"].encode()), self._budget)
                new = replace(current, counts=counts, version=current.version + 1, updated_at=now)
            self._items[key] = new
            return copy.deepcopy(new)

    def get_many(self, keys: Sequence[tuple[str, str, str]]) -> list[Document | None]:
        with self._lock:
            docs = [self._items.get(key) for key in keys]
        return copy.deepcopy(docs)

    def newest(self, owner: str, kind: str, limit: int) -> list[Document]:
        with self._lock:
            docs = [d for (o, k, _), d in self._items.items() if o == owner and k == kind]
        docs.sort(key=lambda d: d.doc_id, reverse=True)
        return copy.deepcopy(docs[:limit])

    def delete(self, owner: str, doc: Document) -> None:
        with self._lock:
            self._items.pop((owner, doc.kind, doc.doc_id), None)
            ledger_key = (doc.quota_holder or "", doc.kind)
            if ledger_key in self._ledgers:
                self._ledgers[ledger_key] = self._ledgers[ledger_key].forget(doc.doc_id, int(self._clock()))

    def every(self, owner: str, kind: str, limit: int, *, after: str | None = None) -> list[Document]:
        if after is None:
            return self.newest(owner, kind, limit)
        with self._lock:
            docs = [d for (o, k, i), d in self._items.items() if o == owner and k == kind and i < after]
        docs.sort(key=lambda d: d.doc_id, reverse=True)
        return copy.deepcopy(docs[:limit])

    def hit(self, counter: str, window: str, limit: int, expires_at: int) -> bool:
        key = (counter, window)
        now = int(self._clock())
        with self._lock:
            count, _ = self._counters.get(key, (0, expires_at))
            if count >= limit:
                return False
            self._counters[key] = (count + 1, expires_at)
            # Windows past their expiry go, as DynamoDB's TTL would take them.
            for stale in [k for k, (_, until) in self._counters.items() if until <= now]:
                del self._counters[stale]
        return True
