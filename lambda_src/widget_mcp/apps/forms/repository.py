"""Form sessions on the document store: one document per form, owned by the principal who was asked."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from widget_mcp import Document, DocumentStore, StateOwner, capability_id, time_ordered_id
from widget_mcp.apps.forms.domain import FormSession

KIND = "form"
DAY = 86_400


@dataclass(frozen=True)
class StoredForm:
    session: FormSession
    document: Document


class FormRepository:
    """With a `quota`, each new form counts against its owner's (a caller without identity: its source address's)
    live forms: QuotaFull past it. A form stops counting once its last step is answered, or at the latest when it
    expires."""

    def __init__(
        self,
        store: DocumentStore,
        ttl_days: int = 7,
        clock: Callable[[], float] = time.time,
        quota: int | None = None,
    ) -> None:
        self._store = store
        self._ttl = ttl_days * DAY
        self._clock = clock
        self._quota = quota

    def new_id(self, owner: StateOwner) -> str:
        return capability_id() if owner.by_capability else time_ordered_id(int(self._clock() * 1000))

    def load(self, owner: StateOwner, form_id: str) -> StoredForm | None:
        doc = self._store.get(owner.partition(form_id), KIND, form_id)
        return None if doc is None else StoredForm(FormSession.from_record(doc.body), doc)

    def create(self, owner: StateOwner, session: FormSession) -> None:
        now = int(self._clock())
        doc = Document(KIND, session.form_id, session.to_record(), 1, now, now, now + self._ttl)
        if self._quota is not None:
            doc = doc.counted_for(owner.quota_holder)
        self._store.create(owner.partition(session.form_id), doc, quota=self._quota)

    def save(self, owner: StateOwner, stored: StoredForm, session: FormSession) -> None:
        """Raises VersionConflict if another submit landed first."""
        now = int(self._clock())
        # An answered form is no longer live: its place in its owner's quota frees an hour after this write.
        doc = stored.document.next(session.to_record(), now=now, expires_at=now + self._ttl, live=not session.complete)
        self._store.replace(owner.partition(doc.doc_id), doc, expected_version=stored.document.version)
