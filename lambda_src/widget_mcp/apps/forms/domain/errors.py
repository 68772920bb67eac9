"""Errors of the forms domain. All subclass ValueError and keep the offending input as `payload`."""

from __future__ import annotations

from typing import Any


class FormError(ValueError):
    """Something about a form request cannot be honoured; `code` is stable, the message is for people."""

    code = "form_error"

    def __init__(self, message: str, payload: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.payload = payload


class InvalidSchema(FormError):
    """The question (or uiSchema) is not a usable form schema."""

    code = "invalid_schema"


class InvalidAnswer(FormError):
    """Submitted data does not satisfy the form's schema; `fields` maps each field path to its problem."""

    code = "invalid_answer"

    def __init__(self, message: str, payload: Any, fields: dict[str, str]) -> None:
        super().__init__(message, payload)
        self.fields = fields


class TooComplex(FormError):
    """Checking this schema or answer would take more evaluation steps than a call may spend (limits.py)."""

    code = "too_complex"


class AlreadyAnswered(FormError):
    """A step was answered before with different data; answers are final."""

    code = "already_answered"
