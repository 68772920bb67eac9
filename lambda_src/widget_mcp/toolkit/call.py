"""The per-call context a tool handler receives."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, overload

from widget_mcp.toolkit.inputs import (
    Answer,
    Elicitation,
    Elicited,
    InputRequest,
    InputRequired,
    InputUnsupported,
    ListRoots,
    MissingClientCapability,
    PromptInputUnsupported,
    Roots,
    Sampled,
    Sampling,
    default_key,
    parse_answer,
)
from widget_mcp.toolkit.ownership import AnonymousState, StateOwner, caller_key, state_owner
from widget_mcp.toolkit.principal import Principal
from widget_mcp.toolkit.results import DisplayWidget
from widget_mcp.toolkit.tasks import Backgrounded, TaskRef

if TYPE_CHECKING:
    from widget_mcp.toolkit.limits import CallLimiter

LogLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
LOG_LEVELS: tuple[LogLevel, ...] = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
LOG_LEVEL_META = "io.modelcontextprotocol/logLevel"
APPS_EXTENSION = "io.modelcontextprotocol/ui"
# A notification for the client, sent on the call's response stream: (method, params).
Notify = Callable[[str, dict[str, Any]], None]
# Looks up the caller's address the first time something needs it (most calls never do).
SourceLookup = Callable[[], "str | None"]


class _Source:
    """`ToolCall.source`: given as an address or as a lookup, read as the address (the lookup runs on first read).

    A dataclass field whose default is a descriptor: `ToolCall(source=...)` goes through `__set__`."""

    def __get__(self, call: ToolCall | None, owner: type | None = None) -> str | None:
        if call is None:
            return None  # the field's default
        value: str | SourceLookup | None = call.__dict__["_source"]
        if callable(value):
            value = call.__dict__["_source"] = value()
        return value

    def __set__(self, call: ToolCall, value: str | SourceLookup | None) -> None:
        call.__dict__["_source"] = value


class ResourceChanges(Protocol):
    """Where `ToolCall.resource_updated` goes: the resource's change item, which its subscribers' streams read
    (transport/subscriptions.py)."""

    def updated(self, uri: str) -> None: ...


class Signer(Protocol):
    """Signs the tokens a tool hands out and reads back (an export's cursor), each purpose under its own label."""

    def sign(self, label: str, text: str) -> str: ...
    def verify(self, label: str, text: str, mac: str) -> bool: ...


@dataclass(frozen=True)
class CallerClient:
    """What this request says about its client.

    `capabilities` is None when the request does not carry them: the 2025-11-25 handshake declares them once, in
    `initialize`, which a stateless server keeps only in a resumable stream's session (RESUMABLE_STREAMS). MCP
    2026-07-28 requests carry them every time.
    """

    protocol_version: str | None = None
    # Whether the protocol is the stateless 2026-07-28 one, where input requests ride in results.
    stateless_protocol: bool = False
    capabilities: Mapping[str, Any] | None = None
    # A 2025-11-25 call whose event stream can carry input requests and be resumed for their answers.
    resumable_stream: bool = False
    # The name the client gives itself (`clientInfo.name`: in `initialize`, kept in a 2025-11-25 session, or in every
    # 2026-07-28 request's envelope), when known.
    client_name: str | None = None

    @property
    def takes_input_requests(self) -> bool:
        """Whether input requests (`ask`) can reach this client at all, capabilities aside."""
        return self.stateless_protocol or self.resumable_stream

    def declares(self, capability: str) -> bool:
        return self.capabilities is not None and isinstance(self.capabilities.get(capability), Mapping)

    def declares_extension(self, extension: str) -> bool:
        extensions = self.capabilities.get("extensions") if self.capabilities is not None else None
        return isinstance(extensions, Mapping) and isinstance(extensions.get(extension), Mapping)

    @property
    def shows_apps(self) -> bool:
        """Whether the client declared MCP Apps (`io.modelcontextprotocol/ui`): it renders widget templates."""
        extensions = self.capabilities.get("extensions") if self.capabilities is not None else None
        return isinstance(extensions, Mapping) and APPS_EXTENSION in extensions


class Asking:
    """Asking the client for input mid-request (MCP 2026-07-28 input requests), shared by tools and prompts.

    The request's context holds `client`, `answers` (this round's, by key) and `used_answers` (what the next
    round's requestState carries)."""

    client: CallerClient
    answers: Mapping[str, Any]
    used_answers: dict[str, Any]

    def _unsupported(self, request: InputRequest) -> Exception:
        """What asking raises when the request's protocol cannot carry input requests."""
        return InputUnsupported(request.method)

    def can_ask(self, request: InputRequest) -> bool:
        """Whether `ask(request)` can reach the client: it speaks MCP 2026-07-28 (or 2025-11-25 on a resumable
        stream) and declared the capability."""
        return self.client.takes_input_requests and self.client.declares(request.capability)

    @overload
    def ask(self, request: Elicitation, *, key: str | None = None) -> Elicited: ...

    @overload
    def ask(self, request: Sampling, *, key: str | None = None) -> Sampled: ...

    @overload
    def ask(self, request: ListRoots, *, key: str | None = None) -> Roots: ...

    def ask(self, request: InputRequest, *, key: str | None = None) -> Answer:
        """The client's answer to `request`. Without one yet, ends this round with an input request (the client
        calls again with the answer, and the handler runs again from the top). `key` names the request on the
        wire; the same request must get the same key in every round (the default derives one from it).

        When the protocol cannot carry input requests, a tool's call ends with the error result
        `input_unsupported` and a prompt's request with a protocol error (`InputUnsupported`,
        `PromptInputUnsupported`); when the client did not declare the capability, both end with the protocol error
        `MissingClientCapability`. Check `can_ask` first to offer something else."""
        name = key or default_key(request)
        return self.ask_all({name: request})[name]

    def ask_all(self, requests: Mapping[str, InputRequest]) -> dict[str, Answer]:
        """Answers to several requests at once, by key: the client is asked for all the missing ones in one round."""
        answers: dict[str, Answer] = {}
        missing: dict[str, InputRequest] = {}
        for key, request in requests.items():
            if not self.client.takes_input_requests:
                raise self._unsupported(request)
            if not self.client.declares(request.capability):
                raise MissingClientCapability(request.capability, request.method)
            if key in self.answers:
                answers[key] = parse_answer(key, request, self.answers[key])
                self.used_answers[key] = self.answers[key]
            else:
                missing[key] = request
        if missing:
            raise InputRequired(missing)
        return answers


class TaskLauncher(Protocol):
    """What the runtime hands a call that went to the background: stores the task, starts its work, and returns
    the `CreateTaskResult` (task_service.py)."""

    async def launch(self, call: ToolCall, arguments: Mapping[str, Any]) -> dict[str, Any]: ...

    def is_cancelled(self, task: TaskRef) -> bool: ...


@dataclass
class ToolCall(Asking):
    """What a handler gets beside its arguments: who calls (`principal`, `caller`, `owner`) from which client
    (`client`), and what it may do during the call: `emit` display widgets, `ask` the client, report `progress`, `log`,
    go to the `background` as a task."""

    tool: str
    principal: Principal
    request_meta: Mapping[str, Any] = field(default_factory=dict)
    request_id: str | None = None
    widgets: list[DisplayWidget] = field(default_factory=list)
    # What a call without identity may do with state (the ANONYMOUS_STATE setting; always refuse with sign-in).
    anonymous_state: AnonymousState = "refuse"
    client: CallerClient = field(default_factory=CallerClient)
    # The answers this round may use (earlier rounds' from the requestState, this round's inputResponses), by key.
    answers: Mapping[str, Any] = field(default_factory=dict)
    # The answers the handler used, in wire form: the next round's requestState carries them.
    used_answers: dict[str, Any] = field(default_factory=dict)
    # Sends a notification on this call's response stream, when the client can receive one.
    notify: Notify | None = None
    # The caller's address (transport/client_address.py); None in process, where no network is crossed.
    source: _Source = _Source()
    # The per-caller rate limit on calls that use state; None: no limit.
    limiter: CallLimiter | None = None
    # Where a call that goes to the background is launched: set when its tool and client allow a task.
    tasks: TaskLauncher | None = None
    # The task this call runs as (in the invocation that does a task's work); None in a request.
    task: TaskRef | None = None
    # The subscriptions to resources (RESUMABLE_STREAMS, an app with a subscribable resource); None: there are none.
    changes: ResourceChanges | None = None
    # The widget session (a game's, a form's id) the call acts on: its declared id argument, then the id its result
    # names. Observers log only a keyed reference to it (observability.py), never the id.
    session_id: str | None = None
    # The server's requestState key, for tokens a tool seals to its caller; None where a call runs as a task.
    signer: Signer | None = None
    _admitted: bool = field(default=False, init=False, repr=False)

    @property
    def caller(self) -> str:
        """Who per-caller limits count this call against (ownership.caller_key)."""
        return caller_key(self.principal, self.source if self.principal.is_anonymous else None)

    def admit(self) -> None:
        """Count this call against its caller's rate limit, once (RateLimited past it). The runtime does so before
        the arguments are even read, so a caller past its limit costs no work."""
        if self.limiter is not None and not self._admitted:
            self.limiter.admit(self.caller)
            self._admitted = True

    def admitted_already(self) -> None:
        """The call was counted before it reached the runtime (a kept call's rerun, by the GET that runs it)."""
        self._admitted = True

    def owner(self, what: str) -> StateOwner:
        """Whose state this call reaches. `what` names the state ("Games") in the identity_required message.
        The call is admitted (`admit`) before anything is read or written."""
        source = self.source if self.principal.is_anonymous else None  # only a caller without identity needs it
        owner = state_owner(self.principal, self.anonymous_state, what, source)
        self.admit()
        return owner

    def emit(self, widget: str, data: dict[str, Any], fallback: str) -> None:
        """Show a display widget with this call's result. Widgets emitted before a failure are discarded."""
        self.widgets.append(DisplayWidget(widget=widget, data=data, fallback=fallback))

    def background(self) -> None:
        """Let the rest of the work run as a task (a tool declared with `task_support`): in a call whose client
        declared the tasks extension, this ends the request with a task id, and a later invocation runs the handler
        again from the top, where `background()` returns at once. Otherwise it returns at once and the call runs to
        its end in the request. Do what has effects after it (the handler runs again), as after `ask`."""
        if self.task is None and self.tasks is not None:
            raise Backgrounded()

    def resource_updated(self, uri: str) -> None:
        """Say that the resource at `uri` (one an app declared `subscribable`) changed: every session subscribed to
        it gets `notifications/resources/updated` on its stream, and reads it anew. One read and one write, however many
        follow it; without RESUMABLE_STREAMS (which subscriptions need) none. Call it after the change is stored."""
        if self.changes is not None:
            self.changes.updated(uri)

    def cancelled(self) -> bool:
        """Whether the client cancelled the task this call runs as (one read of its record): long work may check
        it now and then and stop early. Whatever it returns after a cancel is dropped anyway. False in a request."""
        return self.task is not None and self.tasks is not None and self.tasks.is_cancelled(self.task)

    def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Report progress, when the caller asked for it (a `progressToken`) and can receive notifications."""
        token = self.request_meta.get("progressToken", self.request_meta.get("progress_token"))
        if self.notify is None or not isinstance(token, (str, int)):
            return
        params: dict[str, Any] = {"progressToken": token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        self.notify("notifications/progress", params)

    def log(self, level: LogLevel, data: Any, logger: str | None = None) -> None:
        """Send a log message to the client. MCP 2026-07-28 clients opt in per request (`logLevel` in `_meta`) and
        get that level and above; earlier clients get every level (a stateless server keeps no setLevel)."""
        if self.notify is None or level not in LOG_LEVELS:
            return
        if self.client.stateless_protocol:
            wanted = self.request_meta.get(LOG_LEVEL_META)
            if wanted not in LOG_LEVELS or LOG_LEVELS.index(level) < LOG_LEVELS.index(wanted):
                return
        params: dict[str, Any] = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        self.notify("notifications/message", params)


@dataclass
class PromptCall(Asking):
    """The per-request context a prompt may take (a parameter annotated `PromptCall`): it asks the client for
    input as a tool's `ToolCall` does, with the same signed requestState. A prompt gets no principal: what it
    returns depends on its arguments and the client's answers only."""

    prompt: str
    client: CallerClient = field(default_factory=CallerClient)
    # The answers this round may use, by key, and the ones the handler used (as on ToolCall).
    answers: Mapping[str, Any] = field(default_factory=dict)
    used_answers: dict[str, Any] = field(default_factory=dict)

    def _unsupported(self, request: InputRequest) -> Exception:
        return PromptInputUnsupported(request.method)
