"""What the forms tools take and give: their arguments and payloads as pydantic models, with the bounds hosts see
in the schema."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

_CAMEL = ConfigDict(validate_by_name=True, validate_by_alias=True, serialize_by_alias=True)
_FORM_ID = Field(alias="formId", min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
# Caps on what a call may hand the form store (a DynamoDB item holds 400 KB: five steps of schema and uiSchema,
# their answers and the metadata must fit). A schema as JSON text may be spaced out; the parsed one must still
# fit the domain's 32 KB (uiSchema 16 KB).
MAX_QUESTION_TEXT = 64 * 1024
MAX_UI_SCHEMA_TEXT = 32 * 1024
# The caps appear in the inputSchema too, so hosts and models see them.
QuestionText = Annotated[str, Field(max_length=MAX_QUESTION_TEXT)] | dict[str, Any]
UiSchemaText = Annotated[str, Field(max_length=MAX_UI_SCHEMA_TEXT)] | dict[str, Any]
MAX_METADATA_BYTES = 16 * 1024
MAX_ANSWER_BYTES = 16 * 1024
# How deep answers may nest: the depth to which the forms domain reads a schema's cost (domain/complexity.py).
MAX_ANSWER_DEPTH = 32


def _json_size(value: object) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass"))


def _json_depth(value: object) -> int:
    """How deep `value` nests (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth + 1)
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


# A small form that works as it is: hosts and the playground offer it as the starting point.
EXAMPLE_QUESTION: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Your name", "maxLength": 100},
        "rating": {"type": "integer", "title": "How was your day? (1-5)", "minimum": 1, "maximum": 5},
    },
    "required": ["name"],
}


class AskInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: QuestionText = Field(
        description="The form as a JSON Schema object (Draft-07 or 2020-12), or that object serialized as a JSON "
        "string: type 'object' with 'properties' (titles, types, formats, enums) and 'required'.",
        examples=[EXAMPLE_QUESTION],
    )
    ui_schema: UiSchemaText | None = Field(
        default=None,
        alias="uiSchema",
        description="Optional react-jsonschema-form uiSchema (object or JSON string), e.g. "
        '{"departureDate": {"ui:widget": "date"}, "notes": {"ui:widget": "textarea"}}.',
    )
    title: str | None = Field(
        default=None, max_length=300, description="The form's heading.", examples=["A quick question"]
    )
    description: str | None = Field(default=None, max_length=300, description="One line under the heading.")
    metadata: dict[str, Any] | None = Field(
        default=None,
        description="Optional context kept with the form. A 'next' entry ({title, description, schema, uiSchema}) "
        "adds a follow-up step shown after this one is answered.",
    )

    @field_validator("metadata")
    @classmethod
    def _metadata_within_cap(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        # `next` holds the following steps, each checked by the domain against the per-step caps.
        kept = {key: item for key, item in (value or {}).items() if key != "next"}
        if _json_size(kept) > MAX_METADATA_BYTES:
            raise ValueError(f"besides 'next', it may hold at most {MAX_METADATA_BYTES // 1024} KB of JSON")
        return value


class ChatAnswerInput(BaseModel):
    """record_form_answer's input: what the user said in chat, for a form their client could not show."""

    model_config = ConfigDict(extra="forbid", validate_by_name=True, validate_by_alias=True)

    form_id: str = _FORM_ID
    data: dict[str, Any] = Field(
        description="The user's answers by field name, exactly as they gave them in chat.",
        # Answers to EXAMPLE_QUESTION, so that the two examples make a call that works.
        examples=[{"name": "Ada", "rating": 5}],
    )
    step: int | None = Field(default=None, ge=0, le=10, description="The step answered (default: the current one).")

    @field_validator("data")
    @classmethod
    def _data_within_cap(cls, value: dict[str, Any]) -> dict[str, Any]:
        if _json_depth(value) > MAX_ANSWER_DEPTH:
            raise ValueError(f"the answers may nest at most {MAX_ANSWER_DEPTH} levels deep")
        if _json_size(value) > MAX_ANSWER_BYTES:
            raise ValueError(f"the answers may be at most {MAX_ANSWER_BYTES // 1024} KB of JSON")
        return value


# submit_form's input: the same answers, from the form's widget, with the key it received with the form (no
# docstring: its input schema stays without a description).
class SubmitInput(ChatAnswerInput):
    data: dict[str, Any] = Field(
        description="The field values, as the form's schema describes them.",
        examples=[{"name": "Ada", "rating": 5}],
    )
    answer_key: str | None = Field(
        default=None,
        alias="answerKey",
        max_length=64,
        description="The answer key the form's widget received with the form (its result's _meta.dgui_answer_key).",
    )


class FormIdInput(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_by_name=True, validate_by_alias=True)

    form_id: str = _FORM_ID


class FormPayload(BaseModel):
    """A `dgui_form`: what the widget renders."""

    model_config = _CAMEL

    type: Literal["dgui_form"] = "dgui_form"
    form_id: str = Field(alias="formId")
    title: str | None
    description: str | None
    form_schema: dict[str, Any] = Field(alias="schema")
    ui_schema: dict[str, Any] = Field(alias="uiSchema")
    metadata: dict[str, Any]


class ResponsePayload(BaseModel):
    """A `dgui_response` (the answers) or `dgui_pending` (not answered yet); `next` is the following step's form.
    `action` is set only on the `dgui_pending` that ends a native form (elicitation) the user declined or cancelled:
    nothing will answer that form, so the model should not wait for it."""

    model_config = _CAMEL

    type: Literal["dgui_response", "dgui_pending"]
    form_id: str = Field(alias="formId")
    data: dict[str, Any] | None = None
    step: int | None = Field(default=None, description="The step these answers belong to (0-based).")
    steps: int
    complete: bool
    next: FormPayload | None = None
    action: Literal["decline", "cancel"] | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="What the user did instead of answering a native form: declined or cancelled it.",
    )


class DguiError(BaseModel):
    """A `dgui_error` (seed 001): what went wrong with a form or an answer, and the input it was about. The forms
    tools' errors carry it as structuredContent, so their outputSchema admits it (`error_output`)."""

    # The schema describes what is sent: all three keys, always (`payload` null when there is none).
    model_config = ConfigDict(
        json_schema_mode_override="serialization", json_schema_serialization_defaults_required=True
    )

    type: Literal["dgui_error"] = "dgui_error"
    message: str
    payload: Any = None


# Hint justifications the tools share (ToolBook.tool's justify=).
