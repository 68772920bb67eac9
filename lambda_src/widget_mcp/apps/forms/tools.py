"""The DGUI tools as hosts see them: ask_question shows a form (show_form again), submit_form (widget only) stores
the answer, get_form_response reads it back. Their handlers (handlers.py) load on the first forms call, with the
service and the forms domain: listing the tools loads neither."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from widget_mcp import StoredData, ToolBook, ToolCall, ToolResult, WidgetSpec, days
from widget_mcp.apps.forms.inputs import (
    AskInput,
    ChatAnswerInput,
    DguiError,
    FormIdInput,
    FormPayload,
    ResponsePayload,
    SubmitInput,
)
from widget_mcp.apps.forms.review import declare_review

if TYPE_CHECKING:
    from widget_mcp import AppContext
    from widget_mcp.apps.forms.handlers import FormHandlers

FORM = WidgetSpec(
    name="form",
    entry="form",
    title="Form",
    description="A form the assistant asks the user to fill in; the answers come back to the conversation.",
)
# With sign-in on, a token must hold this scope to use the forms tools.
FORMS_SCOPE = ("forms",)


# The formId these tools take is made by ask_question: declared, so the playground and test clients make one first.
FORM_IDS = {"formId": "ask_question.formId"}


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
