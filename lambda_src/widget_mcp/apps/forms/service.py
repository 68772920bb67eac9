"""The forms use cases: ask (check and store the form), submit (validate and store the answer), read it back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from widget_mcp import StateOwner, VersionConflict
from widget_mcp.apps.forms.domain import FormLimits, FormSession
from widget_mcp.apps.forms.repository import FormRepository, StoredForm


class FormNotFound(ValueError):
    """No form with this id belongs to the caller (another user's form is reported the same way)."""

    code = "form_not_found"

    def __init__(self, form_id: str) -> None:
        super().__init__(f"No form {form_id!r} was found for you.")
        self.form_id = form_id


class FormChanged(ValueError):
    code = "conflict"

    def __init__(self, form_id: str) -> None:
        super().__init__(f"Form {form_id!r} changed while this answer was sent; show it again and resubmit.")
        self.form_id = form_id


class NotAnswerable(ValueError):
    """This caller may not answer this form: a widget's answer without the form's key, or the model recording an
    answer to a form that was shown to the user."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


# Checks that the caller may answer a form (NotAnswerable otherwise), before its answer is read.
AnswerCheck = Callable[[FormSession], None]


@dataclass(frozen=True)
class Submitted:
    session: FormSession
    step: int
    repeated: bool


class FormService:
    def __init__(self, forms: FormRepository, limits: FormLimits | None = None) -> None:
        self._forms = forms
        self._limits = limits or FormLimits()

    @property
    def limits(self) -> FormLimits:
        return self._limits

    def ask(
        self,
        owner: StateOwner,
        question: object,
        ui_schema: object,
        title: str | None,
        description: str | None,
        metadata: dict[str, Any] | None,
    ) -> FormSession:
        return self.keep(owner, self.check(question, ui_schema, title, description, metadata))

    def keep(self, owner: StateOwner, draft: FormSession) -> FormSession:
        """Store a form `check` accepted, under a new id, without checking it again."""
        session = replace(draft, form_id=self._forms.new_id(owner))
        self._forms.create(owner, session)
        return session

    def check(
        self,
        question: object,
        ui_schema: object,
        title: str | None,
        description: str | None,
        metadata: dict[str, Any] | None,
    ) -> FormSession:
        """The session `ask` would store, checked the same way but not stored."""
        return FormSession.ask("unsaved", question, ui_schema, title, description, metadata, self._limits)

    def submit(
        self, owner: StateOwner, form_id: str, data: object, step: int | None, check: AnswerCheck | None = None
    ) -> Submitted:
        stored = self._load(owner, form_id)
        session = stored.session
        if check is not None:
            check(session)
        index, repeated = session.submit(data, step, self._limits)
        if repeated:
            return Submitted(session, index, repeated=True)
        try:
            self._forms.save(owner, stored, session)
        except VersionConflict as exc:
            # Another submit landed first: answer as the stored session does (a retry, or already answered).
            if exc.current is None:
                raise FormNotFound(form_id) from exc
            current = StoredForm(FormSession.from_record(exc.current.body), exc.current)
            index, repeated = current.session.submit(data, index, self._limits)
            if not repeated:
                raise FormChanged(form_id) from exc
            return Submitted(current.session, index, repeated=True)
        return Submitted(session, index, repeated=False)

    def reshow(self, owner: StateOwner, form_id: str, change: Callable[[FormSession], FormSession]) -> FormSession:
        """The form after `change` (who may answer it, as it is shown again), stored when it changed anything."""
        stored = self._load(owner, form_id)
        session = change(stored.session)
        if session == stored.session:
            return session
        try:
            self._forms.save(owner, stored, session)
        except VersionConflict as exc:
            raise FormChanged(form_id) from exc
        return session

    def get(self, owner: StateOwner, form_id: str) -> FormSession:
        return self._load(owner, form_id).session

    def _load(self, owner: StateOwner, form_id: str) -> StoredForm:
        stored = self._forms.load(owner, form_id)
        if stored is None:
            raise FormNotFound(form_id)
        return stored
