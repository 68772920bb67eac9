"""A form session: one or more steps (each a schema), answered in order, each answer final once given.

Multi-step forms: a step's `metadata.next` may describe the following step (`title`, `description`,
`schema` or `question`, `uiSchema`, and its own `next`). The whole chain is checked when the form is asked,
so a bad later step is refused up front, not after the user has answered the first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from widget_mcp.apps.forms.domain.answers import check_answers
from widget_mcp.apps.forms.domain.errors import AlreadyAnswered, InvalidSchema
from widget_mcp.apps.forms.domain.limits import FormLimits
from widget_mcp.apps.forms.domain.schema import (
    MAX_SCHEMA_OBJECTS,
    check_form_schema,
    check_ui_schema,
    read_json_object,
)

MAX_STEPS = 5
MAX_TEXT = 300


@dataclass
class FormStep:
    schema: dict[str, Any]
    ui_schema: dict[str, Any] = field(default_factory=dict)
    title: str | None = None
    description: str | None = None
    answer: dict[str, Any] | None = None

    def to_record(self) -> dict[str, Any]:
        return {
            "schema": self.schema,
            "uiSchema": self.ui_schema,
            "title": self.title,
            "description": self.description,
            "answer": self.answer,
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> FormStep:
        return cls(record["schema"], record["uiSchema"], record["title"], record["description"], record["answer"])


def _text(value: object, what: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise InvalidSchema(f"The {what} must be text of at most {MAX_TEXT} characters.", value)
    return value


def _step(
    question: object, ui_schema: object, title: object, description: object, limits: FormLimits, objects_left: int
) -> tuple[FormStep, int]:
    """The step, and how many of the form's schema objects it holds (check_form_schema)."""
    schema = read_json_object(question, "question")
    objects = check_form_schema(schema, limits, objects_left)
    ui = read_json_object(ui_schema, "uiSchema") if ui_schema is not None else {}
    check_ui_schema(ui)
    return FormStep(schema, ui, _text(title, "title"), _text(description, "description")), objects


@dataclass
class FormSession:
    """Who may answer it: the widget that showed it, holding the answer key whose hash is `key_hash` (None: no
    widget was given one), and the model, recording what the user said in chat, when `in_chat` (a client that
    could not show the form)."""

    form_id: str
    steps: list[FormStep]
    metadata: dict[str, Any] = field(default_factory=dict)
    key_hash: str | None = None
    in_chat: bool = False

    @property
    def asked_natively(self) -> bool:
        """Asked in the client's own form (elicitation), answered only in that round: neither a widget nor the
        model may answer it afterwards, so one left unanswered was declined or cancelled there."""
        return self.key_hash is None and not self.in_chat

    @classmethod
    def ask(
        cls,
        form_id: str,
        question: object,
        ui_schema: object = None,
        title: object = None,
        description: object = None,
        metadata: dict[str, Any] | None = None,
        limits: FormLimits | None = None,
    ) -> FormSession:
        """Check the question (and any `metadata.next` chain) and open a session; raises InvalidSchema, or
        TooComplex for a schema whose answers could not be checked within `limits`."""
        limits = limits or FormLimits()
        first, objects = _step(question, ui_schema, title, description, limits, MAX_SCHEMA_OBJECTS)
        steps = [first]
        meta = dict(metadata or {})
        following = meta.pop("next", None)
        while following is not None:
            if len(steps) == MAX_STEPS:
                raise InvalidSchema(f"A form has at most {MAX_STEPS} steps.", following)
            spec = read_json_object(following, "next step")
            question_of_step = spec.get("schema", spec.get("question"))
            step, held = _step(
                question_of_step,
                spec.get("uiSchema"),
                spec.get("title"),
                spec.get("description"),
                limits,
                MAX_SCHEMA_OBJECTS - objects,
            )
            steps.append(step)
            objects += held
            following = spec.get("next")
        return cls(form_id, steps, meta)

    @property
    def current(self) -> int:
        """The index of the first unanswered step; `len(steps)` once every step is answered."""
        return next((i for i, step in enumerate(self.steps) if step.answer is None), len(self.steps))

    @property
    def complete(self) -> bool:
        return self.current == len(self.steps)

    def submit(self, data: object, step: int | None = None, limits: FormLimits | None = None) -> tuple[int, bool]:
        """Answer `step` (default: the current one). Returns (step, whether this repeats a stored answer).

        Re-sending a stored answer is harmless (a retry); different data for an answered step is refused. Checking
        past `limits` raises TooComplex and leaves the session as it was.
        """
        if step is None:
            previous = self.current - 1  # a retry of the answer just given carries no step
            if previous >= 0 and self.steps[previous].answer == data:
                return previous, True
            if self.complete:
                raise AlreadyAnswered("This form was already answered with different data; answers are final.", data)
        index = self.current if step is None else step
        if not 0 <= index < len(self.steps) or index > self.current:
            at = f"step {self.current + 1} of {len(self.steps)}"
            raise AlreadyAnswered(f"Step {index + 1} cannot be answered now; the form is at {at}.", data)
        target = self.steps[index]
        if target.answer is not None:
            if target.answer == data:
                return index, True
            raise AlreadyAnswered("This form was already answered with different data; answers are final.", data)
        target.answer = check_answers(target.schema, data, limits)
        return index, False

    def answers(self) -> dict[str, Any]:
        """Every answered step's fields in one object (a later step's field wins on a name clash)."""
        merged: dict[str, Any] = {}
        for step in self.steps:
            merged.update(step.answer or {})
        return merged

    def to_record(self) -> dict[str, Any]:
        return {
            "v": 1,
            "id": self.form_id,
            "steps": [s.to_record() for s in self.steps],
            "metadata": self.metadata,
            "keyHash": self.key_hash,
            "inChat": self.in_chat,
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> FormSession:
        # A form stored before answer keys has neither: nothing can answer it, and it expires with its TTL.
        steps = [FormStep.from_record(s) for s in record["steps"]]
        return cls(record["id"], steps, record["metadata"], record.get("keyHash"), bool(record.get("inChat", False)))
