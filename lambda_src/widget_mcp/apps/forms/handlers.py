"""What the DGUI tools do: check and store forms and answers through the service, shape `dgui_*` results.

Loaded on the first forms call (tools.py declares the tools), with the service and the forms domain.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from widget_mcp import (
    IdentityRequired,
    ItemOverBudget,
    QuotaExceeded,
    QuotaFull,
    RateLimited,
    StateOwner,
    StoreBusy,
    TooLarge,
    ToolCall,
    ToolError,
    ToolResult,
    TooManyAtOnce,
    elicits_forms,
    shows_widgets,
)
from widget_mcp.apps.forms.answer_keys import ANSWER_KEY_META, new_key, opens
from widget_mcp.apps.forms.chat_fallback import RECORD_TOOL, chat_text
from widget_mcp.apps.forms.domain import FormError, FormLimits, FormSession, InvalidAnswer
from widget_mcp.apps.forms.elicitation import as_elicitation
from widget_mcp.apps.forms.inputs import (
    MAX_ANSWER_BYTES,
    AskInput,
    ChatAnswerInput,
    DguiError,
    FormIdInput,
    FormPayload,
    ResponsePayload,
    SubmitInput,
)
from widget_mcp.apps.forms.repository import FormRepository
from widget_mcp.apps.forms.service import AnswerCheck, FormChanged, FormNotFound, FormService, NotAnswerable

if TYPE_CHECKING:
    from widget_mcp import AppContext

DGUI_VERSION = "0.1"
SHOW_TOOL = "show_form"
# The `_meta` key of every result that carries a form: the bounds it was accepted under, for the widget, which sizes
# its drawing bound to them (widget_bundles/src/form/complexity.ts).
LIMITS_KEY = "dgui_limits"


def _owner(call: ToolCall) -> StateOwner:
    return call.owner("Forms")


def form_payload(session: FormSession, index: int) -> FormPayload:
    step = session.steps[index]
    meta = {"version": DGUI_VERSION, **session.metadata, "step": index, "steps": len(session.steps)}
    return FormPayload(
        formId=session.form_id,
        title=step.title,
        description=step.description,
        schema=step.schema,
        uiSchema=step.ui_schema,
        metadata=meta,
    )


def limits_meta(limits: FormLimits) -> dict[str, Any]:
    """`_meta` for a result that carries a form: what checking any one value of an answer may cost on this server
    (FORMS_MAX_VALUE_STEPS), so the widget draws every form the server accepts rather than only the default's."""
    return {LIMITS_KEY: {"valueSteps": limits.value_steps}}


_WIDGET_ONLY = (
    "submit_form is for the form's widget: it needs the answer key the widget received with the form. If the user "
    f"answered in chat and this client could not show the form, record their answers with {RECORD_TOOL}."
)
_WRONG_KEY = "This answer key does not open this form; send the answers from the widget that showed it."
_SHOWN = (
    "Form {form_id!r} is shown to the user, who answers it there: their answers arrive from the form itself. Read "
    "them with get_form_response; never answer for the user."
)
# A native form the user declined or cancelled is answered by nobody: what the model may do instead.
_ASK_AGAIN = (
    "It stays unanswered: do not record an answer for it. If the user wants to answer after all, call ask_question "
    "again, which asks with a new form; never answer for the user."
)
_NOT_ANSWERED_NATIVELY = "Form {form_id!r} was asked in the user's own client and not answered there. " + _ASK_AGAIN


def _of(index: int, steps: int) -> str:
    return f", step {index + 1} of {steps}" if steps > 1 else ""


def _summary(data: dict[str, Any], limit: int = 400) -> str:
    text = "; ".join(f"{key}: {value}" for key, value in data.items())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@contextmanager
def _dgui_errors() -> Iterator[None]:
    """Form failures become error results whose structuredContent is a `dgui_error` (the seed's shape, which the
    forms tools declare as their error_output); an answer's per-field messages go to `_meta.error.fields`."""
    try:
        yield
    except FormError as exc:
        details = {"fields": exc.fields} if isinstance(exc, InvalidAnswer) else None
        dgui = DguiError(message=exc.message, payload=exc.payload)
        raise ToolError(exc.message, code=exc.code, details=details, structured=dgui) from exc
    except RecursionError:
        # JSON text nested thousands deep (in a schema string, or a step in metadata.next) overflows the parser.
        message = "Invalid JSON schema. It nests too deeply to read."
        raise ToolError(message, code="invalid_schema", structured=DguiError(message=message)) from None
    except (FormNotFound, IdentityRequired, FormChanged, NotAnswerable) as exc:
        raise ToolError(str(exc), code=exc.code, structured=DguiError(message=str(exc))) from exc
    except ItemOverBudget as exc:
        raise _as_dgui(
            TooLarge("form", exc.size, exc.budget, "Ask with a smaller schema, fewer steps or shorter answers.")
        ) from exc
    except QuotaFull as exc:
        raise _as_dgui(QuotaExceeded("open forms", exc.limit, exc.frees_at, "Answering one of them")) from exc
    except RateLimited as exc:
        raise _as_dgui(exc) from exc
    except StoreBusy as exc:
        raise _as_dgui(TooManyAtOnce(exc.retry_after)) from exc


def _as_dgui(error: ToolError) -> ToolError:
    """The limit's error with the seed's `dgui_error` as its structuredContent, as every forms error has."""
    error.structured = DguiError(message=error.message)
    return error


class FormHandlers:
    """The three forms tools' handlers, bound to one service (and so to one store)."""

    def __init__(self, service: FormService) -> None:
        self.service = service

    @classmethod
    def on(cls, context: AppContext) -> FormHandlers:
        settings = context.settings
        limits = FormLimits(settings.forms_max_check_steps, settings.forms_max_value_steps, MAX_ANSWER_BYTES)
        repository = FormRepository(context.store, settings.forms_ttl_days, quota=settings.quota_live_forms)
        return cls(FormService(repository, limits))

    def ask_question(self, args: AskInput, call: ToolCall) -> ToolResult:
        shows = shows_widgets(call.client, call.request_meta, call.principal)
        native = self._native_form(args, call, shows)
        if isinstance(native, ToolResult):
            return native
        with _dgui_errors():
            owner = _owner(call)
            # A form the native path checked already (one elicitation cannot carry) is kept without a second check.
            draft = native or self.service.check(
                args.question, args.ui_schema, args.title, args.description, args.metadata
            )
            # The widget gets a key to answer with wherever it may be shown; the model may record answers given in
            # chat wherever the form may not be.
            key, hashed = new_key() if shows is not False else (None, None)
            session = self.service.keep(owner, replace(draft, key_hash=hashed, in_chat=shows is not True))
        payload = form_payload(session, 0)
        steps = len(session.steps)
        meta = limits_meta(self.service.limits)
        if key is not None:
            meta[ANSWER_KEY_META] = key
        if shows is True:
            suffix = f" (step 1 of {steps})" if steps > 1 else ""
            narration = f"Showing a form: {payload.title or 'Please fill in'}{suffix}. Form id {session.form_id}."
        else:
            narration = chat_text(
                session.form_id, payload.title, payload.form_schema, maybe_shown=shows is None, step=_of(0, steps)
            )
        return ToolResult(structured=payload, narration=narration, meta=meta, widget_session_id=session.form_id)

    def _native_form(self, args: AskInput, call: ToolCall, shows: bool | None) -> ToolResult | FormSession | None:
        """In a host that shows no widget but can elicit, the form as the host's own (an input request): the first
        round asks, before anything is stored; the answering round stores the form and its answer. None when the
        host shows widgets or cannot elicit a form; the checked form, not stored, when it is not one elicitation can
        carry (see elicitation.py)."""
        if shows is True or not elicits_forms(call.client):
            return None
        with _dgui_errors():
            # The caller is admitted (its rate limit, its identity) before the form costs any checking; a form that
            # is not valid is refused before the user is asked anything; and it is checked once a round.
            owner = _owner(call)
            draft = self.service.check(args.question, args.ui_schema, args.title, args.description, args.metadata)
        first = draft.steps[0]
        request = as_elicitation(first.schema, first.title, first.description) if len(draft.steps) == 1 else None
        if request is None:
            return draft
        answer = call.ask(request, key="form")
        with _dgui_errors():
            session = self.service.keep(owner, draft)
            if answer.accepted:
                session = self.service.submit(owner, session.form_id, answer.content, 0).session
        # The structured result is what the round ended with (the answer, or that there is none), not the question:
        # clients that read only structuredContent give their model that.
        if not answer.accepted:
            declined = answer.action == "decline"
            pending = ResponsePayload(
                type="dgui_pending",
                formId=session.form_id,
                step=0,
                steps=1,
                complete=False,
                action="decline" if declined else "cancel",
            )
            refused = "declined" if declined else "cancelled"
            narration = f"The user {refused} the form; nothing was answered. Form id {session.form_id}. {_ASK_AGAIN}"
            return ToolResult(structured=pending, narration=narration, widget_session_id=session.form_id)
        data = session.steps[0].answer or {}
        response = ResponsePayload(
            type="dgui_response", formId=session.form_id, data=data, step=0, steps=1, complete=True
        )
        title = session.steps[0].title or "the form"
        return ToolResult(
            structured=response,
            narration=f"The user answered {title}: {_summary(data)}. Form id {session.form_id}.",
            meta={"dgui_response": response.model_dump(mode="json", by_alias=True)},
            widget_session_id=session.form_id,
        )

    def submit_form(self, args: SubmitInput, call: ToolCall) -> ToolResult:
        def widget_with_key(session: FormSession) -> None:
            if not opens(session.key_hash, args.answer_key):
                raise NotAnswerable(_WIDGET_ONLY if args.answer_key is None else _WRONG_KEY, "answer_key_invalid")

        return self._answer(args, call, widget_with_key)

    def record_form_answer(self, args: ChatAnswerInput, call: ToolCall) -> ToolResult:
        def asked_in_chat(session: FormSession) -> None:
            if session.asked_natively:
                raise NotAnswerable(_NOT_ANSWERED_NATIVELY.format(form_id=session.form_id), "answered_in_form")
            if not session.in_chat:
                raise NotAnswerable(_SHOWN.format(form_id=session.form_id), "answered_in_form")

        return self._answer(args, call, asked_in_chat)

    def _answer(self, args: ChatAnswerInput, call: ToolCall, check: AnswerCheck) -> ToolResult:
        with _dgui_errors():
            result = self.service.submit(_owner(call), args.form_id, args.data, args.step, check)
        session, steps = result.session, len(result.session.steps)
        answer = session.steps[result.step].answer or {}
        following = None if session.complete else form_payload(session, session.current)
        payload = ResponsePayload(
            type="dgui_response",
            formId=session.form_id,
            data=answer,
            step=result.step,
            steps=steps,
            complete=session.complete,
            next=following,
        )
        title = session.steps[result.step].title or "the form"
        narration = f"The user answered {title}: {_summary(answer)}."
        meta: dict[str, Any] = {}
        if following is not None:
            narration += f" Next, step {session.current + 1} of {steps}: {following.title or 'more questions'}."
            meta = limits_meta(self.service.limits)
            if call.tool == RECORD_TOOL:
                narration += "\n" + chat_text(
                    session.form_id,
                    following.title,
                    following.form_schema,
                    maybe_shown=False,
                    step=_of(session.current, steps),
                )
        return ToolResult(structured=payload, narration=narration, meta=meta, widget_session_id=session.form_id)

    def show_form(self, args: FormIdInput, call: ToolCall) -> ToolResult:
        """A pending form shown again (its first result, and the key in it, may be gone: a reloaded widget, a form
        asked in another conversation). Where it may be shown, its widget gets a fresh answer key and the stored hash
        is replaced, so a key any earlier copy held answers it no more; where it cannot be, its fields as text. A
        form that is answered, or was asked natively, reads back as get_form_response does."""
        shows = shows_widgets(call.client, call.request_meta, call.principal)
        key, hashed = new_key() if shows is not False else (None, None)

        def reshown(session: FormSession) -> FormSession:
            if session.complete or session.asked_natively:
                return session
            return replace(
                session,
                key_hash=hashed if hashed is not None else session.key_hash,
                in_chat=session.in_chat or shows is not True,
            )

        with _dgui_errors():
            session = self.service.reshow(_owner(call), args.form_id, reshown)
        if session.complete or session.asked_natively:
            return self._read_back(session)
        payload = form_payload(session, session.current)
        step = _of(session.current, len(session.steps))
        meta = limits_meta(self.service.limits)
        if key is not None:
            meta[ANSWER_KEY_META] = key
        if shows is True:
            title = payload.title or "Please fill in"
            narration = f"Showing the form again: {title}{step}. Form id {session.form_id}."
        else:
            narration = chat_text(
                session.form_id, payload.title, payload.form_schema, maybe_shown=shows is None, step=step
            )
        return ToolResult(structured=payload, narration=narration, meta=meta, widget_session_id=session.form_id)

    def get_form_response(self, args: FormIdInput, call: ToolCall) -> ToolResult:
        with _dgui_errors():
            session = self.service.get(_owner(call), args.form_id)
        return self._read_back(session)

    def _read_back(self, session: FormSession) -> ToolResult:
        steps = len(session.steps)
        if session.complete:
            data = session.answers()
            payload = ResponsePayload(
                type="dgui_response", formId=session.form_id, data=data, steps=steps, complete=True
            )
            narration = f"The form was answered: {_summary(data)}."
        else:
            payload = ResponsePayload(
                type="dgui_pending", formId=session.form_id, step=session.current, steps=steps, complete=False
            )
            narration = (
                "The form has not been answered yet."
                if session.current == 0
                else (f"The user has answered {session.current} of {steps} steps so far.")
            )
            if not session.in_chat and not session.asked_natively:
                narration += f" If the user no longer sees it, show it again with {SHOW_TOOL}."
            if session.asked_natively:
                narration = _NOT_ANSWERED_NATIVELY.format(form_id=session.form_id)
            elif session.in_chat:
                # Nobody may be able to show it: the model asks and records, rather than waiting.
                step = session.steps[session.current]
                narration += " " + chat_text(
                    session.form_id,
                    step.title,
                    step.schema,
                    maybe_shown=session.key_hash is not None,
                    step=_of(session.current, steps),
                )
        return ToolResult(structured=payload, narration=narration)
