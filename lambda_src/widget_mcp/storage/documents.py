"""The persistence port the apps share: small versioned JSON documents, partitioned by owner.

Keys follow the owner: `pk = USER#<principal key>`, `sk = <KIND>#<id>`, so another principal's document is
simply not found. Every write is conditional: a new document must not exist yet, a replacement must carry
the version it was read at. Ids are time-ordered, so listing a kind newest-first needs no index.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, replace
from typing import Any, Protocol


class StoreError(Exception):
    """Base of the port's failures."""


class VersionConflict(StoreError):
    """The document changed since it was read; `current` is what is stored now (None if it vanished)."""

    def __init__(self, kind: str, doc_id: str, expected: int, current: Document | None) -> None:
        super().__init__(f"{kind} {doc_id} is no longer at version {expected}")
        self.kind, self.doc_id, self.expected, self.current = kind, doc_id, expected, current


class AlreadyExists(StoreError):
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


@dataclass(frozen=True, slots=True)
class Document:
    kind: str
    doc_id: str
    body: dict[str, Any]
    version: int
    created_at: int
    updated_at: int
    expires_at: int

    def next(self, body: dict[str, Any], *, now: int, expires_at: int) -> Document:
        return replace(self, body=body, version=self.version + 1, updated_at=now, expires_at=expires_at)


class DocumentStore(Protocol):
    def get(self, owner: str, kind: str, doc_id: str) -> Document | None:
        """A strongly consistent read."""
        ...

    def create(self, owner: str, doc: Document) -> None:
        """Raises AlreadyExists if the id is taken."""
        ...

    def replace(self, owner: str, doc: Document, expected_version: int) -> None:
        """Write `doc` only if the stored version is still `expected_version`; else VersionConflict."""
        ...

    def newest(self, owner: str, kind: str, limit: int) -> list[Document]:
        """The owner's documents of a kind, newest first."""
        ...


def time_ordered_id(now_ms: int | None = None) -> str:
    """12 hex digits of milliseconds then 10 random hex digits: sortable by creation, unguessable enough."""
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    return f"{ms:012x}{os.urandom(5).hex()}"
