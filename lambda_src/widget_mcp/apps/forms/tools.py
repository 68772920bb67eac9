"""The DGUI tools as hosts see them: ask_question shows a form (show_form again), submit_form (widget only) stores
the answer, get_form_response reads it back. Their handlers (handlers.py) load on the first forms call, with the
service and the forms domain: listing the tools loads neither."""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from widget_mcp.apps.forms.review import declare_review
from widget_mcp.toolkit import ToolBook, ToolCall, ToolResult
from widget_mcp.toolkit.inventory import StoredData, days
from widget_mcp.toolkit.widgets import WidgetSpec

if TYPE_CHECKING:
    from widget_mcp.apps.forms.handlers import FormHandlers
    from widget_mcp.apps.registry import AppContext

FORM = WidgetSpec(
    name="form",
    entry="form",
    title="Form",
    description="A form the assistant asks the user to fill in; the answers come back to the conversation.",
)
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


# With sign-in on, a token must hold this scope to use the forms tools.
FORMS_SCOPE = ("forms",)


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


# The formId these tools take is made by ask_question: declared, so the playground and test clients make one first.
FORM_IDS = {"formId": "ask_question.formId"}


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
PRIVATE_FORMS = "Writes only to the user's own forms in this app's private store; nothing outside it is touched."
KEPT_FORM = (
    "Adds a stored form that counts toward the user's quota and "
    "that no forms tool removes, so the write is marked irreversible."
)
ANSWERS_FINAL = "Answers are final: an answered step cannot be answered again with other data."


def build_book(context: AppContext) -> ToolBook:
    """The forms tools on this context's store and settings."""
    # A question that is not JSON is refused by the forms domain before anything is stored.
    book = ToolBook(warm_up=("ask_question", {"question": "not a form"}), keeps=("form",))
    book.stored.append(
        StoredData(
            what="Forms and their answers",
            content="the questions the assistant asked and the answers the user submitted, which may be personal data "
            "the user chose to enter",
            purpose="to show the form, check the answers and give them back to the assistant",
            kept=f"{days(context.settings.forms_ttl_days)} after the form last changed",
        )
    )

    @cache
    def forms() -> FormHandlers:
        from widget_mcp.apps.forms.handlers import FormHandlers

        return FormHandlers.on(context)

    @book.tool(
        name="ask_question",
        justify={
            "read_only": "Stores the form it shows so its answers can be checked and read back, so it writes state.",
            "open_world": PRIVATE_FORMS,
            "destructive": KEPT_FORM,
        },
        sign_in=FORMS_SCOPE,
        title="Ask the user with a form",
        description=(
            "Shows the user a form to fill in and returns a formId. Suited to several structured details or a "
            "choice among known options, such as dates for a booking, search filters or preferences. Write "
            "`question` as a JSON Schema object (type 'object', properties with titles, types, formats such as "
            "'date', enums, and 'required'); pass uiSchema hints for dates, text areas, radio buttons or "
            "checkboxes. The answers come back in the conversation, or through get_form_response with the formId. "
            "Forms are kept for days in this app's store: do not ask for passwords, payment card or bank details, "
            "government ids or health information. Where this client cannot show forms, the result says so and "
            "lists the fields: ask in chat, then record the answers with record_form_answer. Never assume values "
            "the user has not given."
        ),
        # A `dgui_form` to show; where the client asked the user natively, the answer (`dgui_response`) or, if the
        # user declined, a `dgui_pending` saying so.
        output=(FormPayload, ResponsePayload),
        error_output=DguiError,
        read_only=False,
        destructive=True,
        open_world=False,
        invoking="Preparing a form…",
        invoked="Form ready",
        widget=FORM,
    )
    def ask_question(args: AskInput, call: ToolCall) -> ToolResult:
        return forms().ask_question(args, call)

    @book.tool(
        name="submit_form",
        justify={
            "read_only": "Stores the user's answers to a form, so it writes state.",
            "open_world": PRIVATE_FORMS,
            "destructive": ANSWERS_FINAL,
        },
        ids=FORM_IDS,
        sign_in=FORMS_SCOPE,
        title="Submit a form",
        description="Called by the form widget with the user's answers; they are checked against the form's schema.",
        output=ResponsePayload,
        error_output=DguiError,
        read_only=False,
        destructive=True,
        open_world=False,
        idempotent=True,
        invoking="Sending your answers…",
        invoked="Answers received",
        widget_accessible=True,
        visibility="private",
    )
    def submit_form(args: SubmitInput, call: ToolCall) -> ToolResult:
        return forms().submit_form(args, call)

    @book.tool(
        name="record_form_answer",
        justify={
            "read_only": "Stores the answers the user gave in chat to a form, so it writes state.",
            "open_world": PRIVATE_FORMS,
            "destructive": ANSWERS_FINAL,
        },
        ids=FORM_IDS,
        sign_in=FORMS_SCOPE,
        title="Record answers given in chat",
        description=(
            "Records the answers the user gave in chat to a form ask_question could not show in this client (its "
            "result said so and listed the fields). They are checked against the form's schema like a form's own "
            "answers; fix what it reports and call again. Only for such forms, and only with what the user said."
        ),
        output=ResponsePayload,
        error_output=DguiError,
        read_only=False,
        destructive=True,
        open_world=False,
        idempotent=True,
        invoking="Recording the answers…",
        invoked="Answers recorded",
    )
    def record_form_answer(args: ChatAnswerInput, call: ToolCall) -> ToolResult:
        return forms().record_form_answer(args, call)

    @book.tool(
        name="get_form_response",
        justify={
            "read_only": "Only reads a stored form's answers; nothing is written.",
            "open_world": "Reads only the user's own form in this app's private store.",
            "destructive": "Reads only: nothing is deleted, overwritten or sent.",
        },
        ids=FORM_IDS,
        sign_in=FORMS_SCOPE,
        title="Get a form's answers",
        description="Returns the user's answers to a form shown by ask_question, or says it is still unanswered.",
        output=ResponsePayload,
        error_output=DguiError,
        read_only=True,
        destructive=False,
        open_world=False,
        idempotent=True,
        invoking="Checking the form…",
        invoked="Form checked",
    )
    def get_form_response(args: FormIdInput, call: ToolCall) -> ToolResult:
        return forms().get_form_response(args, call)

    @book.tool(
        name="show_form",
        justify={
            "read_only": "Replaces the form's answer key with the one it gives the widget, so it writes state.",
            "open_world": PRIVATE_FORMS,
            "destructive": "Overwrites the form's answer key, so a widget that showed the form before can no longer "
            "answer it; no question or answer changes.",
        },
        ids=FORM_IDS,
        sign_in=FORMS_SCOPE,
        title="Show a form again",
        description=(
            "Shows the user again a form ask_question showed that is not answered yet (the user no longer sees it, "
            "or it was asked in another conversation), at the step they reached. Where this client cannot show "
            "forms, the result lists the fields instead: ask in chat, then record the answers with "
            "record_form_answer. An answered form reads back its answers, as get_form_response does."
        ),
        output=(FormPayload, ResponsePayload),
        error_output=DguiError,
        read_only=False,
        destructive=True,
        open_world=False,
        invoking="Showing the form…",
        invoked="Form shown",
        widget=FORM,
    )
    def show_form(args: FormIdInput, call: ToolCall) -> ToolResult:
        return forms().show_form(args, call)

    declare_review(book)
    return book
