"""Runs declared tools: renders templates once, validates arguments, maps failures, collects display widgets."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol, cast

import anyio.to_thread
from pydantic import ValidationError

from widget_mcp.storage.documents import StoreUnavailable
from widget_mcp.toolkit.bundles import BundleManifest
from widget_mcp.toolkit.call import (
    CallerClient,
    Notify,
    PromptCall,
    ResourceChanges,
    SourceLookup,
    TaskLauncher,
    ToolCall,
)
from widget_mcp.toolkit.catalog import Catalog
from widget_mcp.toolkit.client_surface import AppOnly, shows_widgets
from widget_mcp.toolkit.errors import DeclarationError, IdentityRequired, ToolError
from widget_mcp.toolkit.failures import INTERNAL_ERROR_CODE, InvalidArguments, error_result
from widget_mcp.toolkit.id_sources import check_id_sources, declared_id
from widget_mcp.toolkit.inputs import InputRequired, InputUnsupported, ProtocolRefusal
from widget_mcp.toolkit.limits import CallLimiter
from widget_mcp.toolkit.ownership import AnonymousState
from widget_mcp.toolkit.principal import Principal, resolve_principal
from widget_mcp.toolkit.request_state import RequestStates
from widget_mcp.toolkit.results import ToolResult
from widget_mcp.toolkit.tasks import INTERNAL_ERROR, TASKS_EXTENSION, Backgrounded, TasksRequired
from widget_mcp.toolkit.tools import SignInDeclaration, ToolBook, ToolSpec
from widget_mcp.toolkit.widgets import WidgetTemplate, render_template

# A prompt's requestState is bound to "prompt:<name>": tool names are snake_case, so no tool's can equal it.
PROMPT_STATE_PREFIX = "prompt:"

logger = logging.getLogger(__name__)


class CallObserver(Protocol):
    """Receives one report per tool call (for logs and metrics)."""

    def started(self, tool: str, call: ToolCall) -> None: ...

    def finished(self, tool: str, error_code: str | None, seconds: float) -> None: ...


class _NoObserver:
    def started(self, tool: str, call: ToolCall) -> None:
        pass

    def finished(self, tool: str, error_code: str | None, seconds: float) -> None:
        pass


@dataclass(frozen=True)
class TemplateSettings:
    base_url: str
    origin: str
    widget_domain: str | None = None
    # Pins template URIs to a release (WIDGET_RELEASE) rather than the template's hash.
    release: str | None = None


class ToolRuntime:
    """Holds every tool and template of the server. Built once per process."""

    def __init__(
        self,
        books: Iterable[ToolBook],
        templates: TemplateSettings,
        manifest: BundleManifest,
        *,
        observer: CallObserver | None = None,
        sync_in_thread: bool = False,
        sign_in: SignInDeclaration | None = None,
        anonymous_state: AnonymousState = "capability",
        limiter: CallLimiter | None = None,
        request_states: RequestStates | None = None,
        tasks: TaskLauncher | None = None,
    ) -> None:
        """`request_states` signs the state of input requests (`ToolCall.ask`); without it, a key made for this
        process alone, which no other instance or restart accepts."""
        self.request_states = request_states or RequestStates(_process_key, ttl_seconds=600)
        # Stores and starts the calls that go to the background (tasks.py); None: no call becomes a task.
        self.tasks = tasks
        # Where `call.resource_updated` goes (the wiring sets it when subscriptions are offered); None: nowhere.
        self.changes: ResourceChanges | None = None
        books = list(books)
        self.limiter = limiter
        self.tools: dict[str, ToolSpec] = {}
        for book in books:
            for name, spec in book.tools.items():
                if name in self.tools:
                    raise DeclarationError(name, "two apps declare a tool with this name")
                self.tools[name] = spec
        check_id_sources(self.tools)
        self.templates: dict[str, WidgetTemplate] = {}
        by_widget: dict[str, WidgetTemplate] = {}
        self._by_widget = by_widget
        for spec in self.tools.values():
            if spec.widget is not None and spec.widget.name not in by_widget:
                template = render_template(
                    spec.widget,
                    base_url=templates.base_url,
                    origin=templates.origin,
                    manifest=manifest,
                    widget_domain=templates.widget_domain,
                    release=templates.release,
                )
                by_widget[spec.widget.name] = template
                self.templates[template.uri] = template
        unbuilt = manifest.unbuilt(spec.widget.entry for spec in self.tools.values() if spec.widget is not None)
        if unbuilt:
            # A template then loads `<entry>.js`, which no bundle holds: the widget stays blank in every host.
            logger.warning(
                "widget entries missing from the bundle manifest: %s; build the widgets, or match each "
                "WidgetSpec(entry=...) to an entry name the widget build writes",
                ", ".join(unbuilt),
            )
        self.tool_list: list[dict[str, Any]] = [
            spec.describe(by_widget[spec.widget.name].uri if spec.widget else None, sign_in)
            for spec in self.tools.values()
        ]
        self.sign_in = sign_in
        # With sign-in on, a call without a verified subject owns nothing, whatever the setting says.
        self.anonymous_state: AnonymousState = "refuse" if sign_in is not None else anonymous_state
        # The apps' prompts, resources and resource templates, beside the widget templates.
        self.catalog = Catalog(books, self.templates)
        self.resource_list: list[dict[str, Any]] = [
            *(t.resource_listing() for t in self.templates.values()),
            *self.catalog.resource_list,
        ]
        # Tools whose arguments travel in `Mcp-Param-*` headers too (`x-mcp-header`), with their input schema.
        self.header_schemas: dict[str, dict[str, Any]] = {
            n: t.input_schema for n, t in self.tools.items() if t.header_arguments
        }
        self._observer: CallObserver = observer or _NoObserver()
        # Lambda serves one event at a time per container, so a sync handler runs inline there;
        # a local server handles requests concurrently and moves sync handlers off the event loop.
        self._sync_in_thread = sync_in_thread
        self._inline = frozenset(() if sync_in_thread else (n for n, t in self.tools.items() if not t.is_async))
        self._widget_callable = frozenset(n for n, t in self.tools.items() if t.widget_accessible)

    def protected_tools(self) -> dict[str, tuple[str, ...]]:
        """With sign-in on, each tool that needs it and the scopes (as published) its token must hold."""
        if self.sign_in is None:
            return {}
        prefix = self.sign_in.scope_prefix
        return {n: tuple(prefix + s for s in t.sign_in) for n, t in self.tools.items() if t.sign_in is not None}

    def runs_inline(self, name: object) -> bool:
        """Whether a call of tool `name` runs to its end without ever waiting, so it may be served with no event
        loop running: a sync tool run inline (observers are sync). Never an async tool, even one that awaits
        nothing: its body may still need the running loop (`asyncio.get_running_loop()`, `create_task`, anyio)."""
        return isinstance(name, str) and name in self._inline

    def widget_callable(self, name: object) -> bool:
        """Whether a widget may call tool `name` (`openai/widgetAccessible`)."""
        return isinstance(name, str) and name in self._widget_callable

    def fixed_resource(self, uri: object) -> bool:
        """Whether reading `uri` always answers the same while the process lives (a widget template's or a fixed
        resource's), so its answer may be kept."""
        return (isinstance(uri, str) and uri in self.templates) or self.catalog.is_fixed(uri)

    def header_schema(self, name: str) -> dict[str, Any] | None:
        """The input schema of tool `name` when some of its arguments are mirrored in headers, else None."""
        return self.header_schemas.get(name)

    def template_uri(self, widget_name: str) -> str:
        return self._by_widget[widget_name].uri

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        meta: Mapping[str, Any] | None,
        request_id: str | None = None,
        subject: str | None = None,
        host_subject: str | None = None,
        source: str | SourceLookup | None = None,
        *,
        client: CallerClient | None = None,
        input_responses: Mapping[str, Any] | None = None,
        request_state: str | None = None,
        notify: Notify | None = None,
        admitted: bool = False,
    ) -> dict[str, Any]:
        """Run one tool call and return the wire result: a result, or an `input_required` one when the handler
        asked for input it does not have yet. Never raises for tool-level failures; raises `ProtocolRefusal` for
        a request the server must refuse (a requestState it cannot trust, an answer that answers nothing asked,
        input the client cannot give).

        `source`: the caller's address (transport/client_address.py), which per-caller limits count a caller
        without identity by, or a lookup of it, run only if something needs the address.

        `name` must be one of `self.tools`: an unknown tool is a protocol error, the server's to answer.
        `input_responses` and `request_state` are a retried call's answers and the state it was given. `admitted`:
        the call was counted against its caller's rate limit already (a kept call's rerun, by the GET that runs it).
        """
        spec = self.tools[name]
        started = time.perf_counter()
        # With sign-in on, only a verified subject names a user: host hints could be anyone's claim.
        principal = resolve_principal(meta, subject, host_subject, trust_hints=self.sign_in is None)
        answers: Mapping[str, Any] = input_responses or {}
        if request_state is not None:
            # Earlier rounds' answers, trusted over what the client sends again for the same keys.
            answers = {**answers, **self.request_states.open(request_state, name, arguments or {}, principal.key)}
        call = ToolCall(
            tool=name,
            principal=principal,
            request_meta=meta or {},
            request_id=request_id,
            anonymous_state=self.anonymous_state,
            source=source,
            limiter=self.limiter,
            client=client or CallerClient(),
            answers=answers,
            notify=notify,
            changes=self.changes,
            session_id=declared_id(spec.ids, arguments),
            signer=self.request_states,
        )
        if admitted:
            call.admitted_already()
        if spec.task_support != "forbidden":
            if self.tasks is not None and call.client.declares_extension(TASKS_EXTENSION):
                call.tasks = self.tasks
            elif spec.task_support == "required":
                raise TasksRequired(name)
        self._observer.started(name, call)
        error_code: str | None = None
        try:
            try:
                call.admit()  # every call, before its arguments are read: a caller past its limit costs no work
                if spec.visibility == "private" and shows_widgets(call.client, call.request_meta, principal) is False:
                    raise AppOnly(name)
                if spec.needs_identity and principal.is_anonymous:
                    raise IdentityRequired(spec.title, tool=name)
                result = await self._run(spec, arguments, call)
            except Backgrounded:
                assert call.tasks is not None
                return await call.tasks.launch(call, arguments or {})
            call.session_id = result.widget_session_id or call.session_id
            return result.to_wire(call.widgets)
        except InputRequired as needed:
            if not call.client.takes_input_requests:
                wire, error_code = error_result(InputUnsupported(next(iter(needed.requests.values())).method), spec)
                return wire
            return self._input_required(needed, call.tool, call.used_answers, arguments or {}, principal)
        except ProtocolRefusal:
            error_code = "refused"
            raise
        except Exception as exc:  # noqa: BLE001 - the one place failures become results
            wire, error_code = error_result(exc, spec)
            return wire
        finally:
            self._observer.finished(name, error_code, time.perf_counter() - started)

    async def get_prompt(
        self,
        name: str,
        arguments: Mapping[str, str] | None,
        meta: Mapping[str, Any] | None,
        subject: str | None = None,
        host_subject: str | None = None,
        *,
        client: CallerClient | None = None,
        input_responses: Mapping[str, Any] | None = None,
        request_state: str | None = None,
    ) -> dict[str, Any]:
        """The `prompts/get` result, or an `input_required` one when the prompt asked for input it does not have
        yet. Its requestState is signed and bound as a tool call's is (to the prompt, its arguments and the
        caller), so a state issued for a tool, another prompt or other arguments is refused. Raises CatalogError
        for an unknown prompt or arguments it refuses, and `ProtocolRefusal` as `call` does."""
        target = f"{PROMPT_STATE_PREFIX}{name}"
        principal = resolve_principal(meta, subject, host_subject, trust_hints=self.sign_in is None)
        answers: Mapping[str, Any] = input_responses or {}
        if request_state is not None and name in self.catalog.prompts:
            answers = {**answers, **self.request_states.open(request_state, target, arguments or {}, principal.key)}
        call = PromptCall(name, client=client or CallerClient(), answers=answers)
        try:
            return await self.catalog.get_prompt(name, arguments, call)
        except InputRequired as needed:
            return self._input_required(needed, target, call.used_answers, arguments or {}, principal)

    async def _run(self, spec: ToolSpec, arguments: Mapping[str, Any] | None, call: ToolCall) -> ToolResult:
        try:
            args = spec.input_model.model_validate(dict(arguments or {}))
        except ValidationError as exc:
            raise InvalidArguments(exc) from None
        if spec.is_async:
            result = await cast(Any, spec.handler(args, call))
        elif self._sync_in_thread and call.task is None:
            result = await anyio.to_thread.run_sync(spec.handler, args, call)
        else:
            result = spec.handler(args, call)
        if not isinstance(result, ToolResult):
            raise TypeError(f"tool {spec.name} returned {type(result).__name__}, not ToolResult")
        return result

    async def run_task_round(self, call: ToolCall, arguments: Mapping[str, Any]) -> TaskRound:
        """Run the handler of a task (`call.task` set) once, in the invocation that does its work: the outcome
        is a tool result (its error results too), the input it asks for, or a failure the client sees as a
        JSON-RPC error (a refusal, or anything the handler did not expect)."""
        spec = self.tools.get(call.tool)
        started = time.perf_counter()
        self._observer.started(call.tool, call)
        error_code: str | None = None
        try:
            if spec is None:
                error_code = "failed"
                return TaskRound("failed", _task_error(INTERNAL_ERROR, f"No tool {call.tool!r} is served any more."))
            try:
                call.session_id = declared_id(spec.ids, arguments)
                result = await self._run(spec, arguments, call)
                call.session_id = result.widget_session_id or call.session_id
                return TaskRound("completed", result.to_wire(call.widgets))
            except InputRequired as needed:
                return TaskRound("input_required", {k: r.wire() for k, r in needed.requests.items()})
            except ProtocolRefusal as refusal:
                error_code = "refused"
                return TaskRound("failed", _task_error(refusal.code, refusal.message, refusal.data))
            except (ToolError, InvalidArguments, StoreUnavailable) as exc:
                wire, error_code = error_result(exc, spec)
                return TaskRound("completed", wire)
            except Exception:
                logger.exception("task of tool %s failed unexpectedly", call.tool, extra={"tool": call.tool})
                error_code = INTERNAL_ERROR_CODE
                message = f"{call.tool} failed because of an error on the server; it has been logged."
                return TaskRound("failed", _task_error(INTERNAL_ERROR, message))
        finally:
            self._observer.finished(call.tool, error_code, time.perf_counter() - started)

    def _input_required(
        self,
        needed: InputRequired,
        target: str,
        used_answers: Mapping[str, Any],
        arguments: Mapping[str, Any],
        principal: Principal,
    ) -> dict[str, Any]:
        return {
            "resultType": "input_required",
            "inputRequests": {key: request.wire() for key, request in needed.requests.items()},
            "requestState": self.request_states.seal(target, arguments, principal.key, used_answers),
        }


@dataclass(frozen=True)
class TaskRound:
    """What one run of a task's handler came to: `completed` with the tool's wire result, `input_required` with
    the requests by key, or `failed` with a JSON-RPC error object."""

    status: Literal["completed", "input_required", "failed"]
    payload: dict[str, Any]


def _task_error(code: int, message: str, data: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return {"code": code, "message": message, **({"data": dict(data)} if data else {})}


def _process_key() -> bytes:
    import os

    return os.urandom(32)
