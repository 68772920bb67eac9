"""The corpus of hostile inputs (tests/hostile/*.json) and how to replay it through a client.

Each entry is a JSON file: `about` (what it attacks, and the bound that holds it) and `steps`, each a tool call with
its `arguments` and the outcome it must get (`expect`: "ok", an error code, or `http_<status>` for a request the
endpoint refuses before any tool runs); where the in-memory client and the HTTP endpoint differ, `expect` names each:
`{"client": …, "endpoint": …}`. A step may instead be another request, `method` and `params` (`resources/read`,
`resources/subscribe`), whose JSON-RPC error is the outcome `error_<code>` (or the error code its data names, such as
`rate_limited`). Arguments and params may hold:
- `{"$repeat": value, "times": n}`: a string repeated n times, or a list of n copies of `value`'s items;
- `{"$join": [part, …]}`: the parts (expanded) as one string;
- the text `"$formId"` / `"$gameId"`: the id the entry's last ask_question / chess_new_game returned;
- the text `"$requestId"`: the id of the input request the entry's last event stream carried.
A `submit_form` step is sent as the form's widget sends it, with the answer key the entry's last form came with
(`_meta.dgui_answer_key`), unless its arguments name their own `answerKey` (null: none).
A reply that is an event stream (a call that asks its client mid-call) gets the outcome of its last message: a
request's is `stream_<its method>` (`stream_elicitation/create`); a response's is read as a JSON reply's.

A step may also carry:
- `repeat`: how many times it is sent (each must get `expect`);
- `caller`: whom it is sent as (`openai/subject`), instead of the corpus's one caller; `meta`: more `_meta` keys;
- `session: "new"`: over the endpoint, each time it is sent, in a session opened for it (a client of its own);
- `stores_at_most`: the bytes the store may gain from it; without it, a step refused stores nothing;
- instead of a request, `post` (a raw JSON-RPC message or batch, POSTed as is, with the protocol `version` the step
  names, else the entry's), or `resume: true` (GET with `Last-Event-ID`: the first event of the entry's last event
  stream). Their outcome is the reply's: `http_<status>` for any but 200. Only the endpoint has these, so an entry
  that holds one is `endpoint_only` (the in-memory client does not replay it).

An entry may carry `settings` (Settings fields for it alone, such as `{"rate_limit_calls": 1}`) and `session`, the
capabilities its client declares (`{"elicitation": {}}`): over the endpoint its steps are sent in a 2025-11-25
session that declares them (with resumable streams, as by default), and the in-memory client declares them too (an
input request it gets is declined). An entry with `app` (a module of tests/, such as `template_shapes`) is served by
that app alone, built with the toolkit's public API, with resumable streams and subscriptions on; over the endpoint
its steps, too, are sent in a session. Others are served by the registry's apps with the tests' settings.
The tests (tests/functional/test_hostile_inputs.py) assert each outcome; `python -m bench.security` times them.
"""

from __future__ import annotations

import importlib
import json
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp import Client
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types import ElicitResult
from pydantic import SecretStr
from widget_mcp.apps.forms.answer_keys import ANSWER_KEY_META

if TYPE_CHECKING:
    from mcp.server.lowlevel.server import Server
    from widget_mcp.settings import Settings
    from widget_mcp.storage.documents import DocumentStore
    from widget_mcp.transport.endpoint import McpEndpoint
    from widget_mcp.transport.replies import HttpReply

CORPUS = Path(__file__).resolve().parent / "hostile"
SUBJECT = "hostile-tester"
CALLER = {"openai/subject": SUBJECT}
HEADERS = {"host": "127.0.0.1:8000", "content-type": "application/json", "accept": "application/json"}
SESSION_VERSION = "2025-11-25"
# Which result field names the id later steps refer to.
IDS = {"ask_question": ("$formId", "formId"), "chess_new_game": ("$gameId", "gameId")}
# Where the answer key of the entry's last form is kept (form_keys.py does the same for the other tests).
ANSWER_KEY = "$answerKey"
POST, RESUME = "POST", "GET"  # a step's `method` when it is a raw POST, or a resuming GET


@dataclass(frozen=True)
class Step:
    tool: str  # the tool called, or the request's method (`method`), or what a raw POST or GET is
    arguments: dict[str, Any]  # the tool's arguments, or the request's params
    expect: str | dict[str, str]
    method: str = "tools/call"
    repeat: int = 1
    caller: str = SUBJECT
    meta: dict[str, Any] = field(default_factory=dict)
    new_session: bool = False
    body: Any = None  # a raw POST's message or batch
    version: str | None = None  # a raw POST's protocol version
    stores_at_most: int | None = None

    def expected(self, path: str) -> str:
        """The outcome over `path` ("client" or "endpoint")."""
        return self.expect if isinstance(self.expect, str) else self.expect[path]

    @property
    def sent_meta(self) -> dict[str, Any]:
        return {**self.meta, "openai/subject": self.caller}


@dataclass(frozen=True)
class Entry:
    name: str
    about: str
    steps: tuple[Step, ...]
    app: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    capabilities: dict[str, Any] | None = None  # the entry's `session`
    endpoint_only: bool = False


def _expand(value: Any) -> Any:
    if isinstance(value, dict):
        if "$repeat" in value:
            item, times = _expand(value["$repeat"]), value["times"]
            return item * times if isinstance(item, (str, list)) else [item] * times
        if "$join" in value:
            return "".join(_expand(part) for part in value["$join"])
        return {key: _expand(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_expand(item) for item in value]
    return value


def _step(raw: dict[str, Any]) -> Step:
    common = {
        "repeat": raw.get("repeat", 1),
        "caller": raw.get("caller", SUBJECT),
        "meta": _expand(raw.get("meta", {})),
        "new_session": raw.get("session") == "new",
        "stores_at_most": raw.get("stores_at_most"),
    }
    if "post" in raw:
        body = _expand(raw["post"])
        shown = f"POST batch of {len(body)}" if isinstance(body, list) else "POST"
        return Step(shown, {}, raw["expect"], POST, body=body, version=raw.get("version"), **common)
    if raw.get("resume"):
        return Step("GET resume", {}, raw["expect"], RESUME, **common)
    if "method" in raw:
        return Step(raw["method"], _expand(raw["params"]), raw["expect"], raw["method"], **common)
    return Step(raw["tool"], _expand(raw["arguments"]), raw["expect"], **common)


def load(name: str) -> Entry:
    raw = json.loads((CORPUS / f"{name}.json").read_text())
    steps = tuple(_step(s) for s in raw["steps"])
    endpoint_only = bool(raw.get("endpoint_only"))
    if not endpoint_only and any(step.method in (POST, RESUME) for step in steps):
        raise ValueError(f"{name}: a raw POST or a resuming GET is the endpoint's alone: mark it endpoint_only")
    return Entry(name, raw["about"], steps, raw.get("app"), raw.get("settings", {}), raw.get("session"), endpoint_only)


def names(path: str = "endpoint") -> list[str]:
    """The entries replayed over `path` ("client" or "endpoint")."""
    every = sorted(p.stem for p in CORPUS.glob("*.json"))
    return every if path == "endpoint" else [name for name in every if not load(name).endpoint_only]


def _served(entry: Entry, settings: Settings, store: DocumentStore) -> tuple[Server[Any], McpEndpoint]:
    """The server (for the in-memory client) and the endpoint that serve `entry`."""
    from widget_mcp.wiring import build_core

    # A session's input requests are signed with a key of the tests' (one made by the process would be warned of).
    settings = settings.model_copy(update={"request_state_secret": SecretStr("s" * 40), **entry.settings})
    if entry.app is None:
        core = build_core(settings, store=store)
        return build_server_of(core.runtime), core.endpoint
    from widget_mcp.server import build_runtime
    from widget_mcp.toolkit.limits import CallLimiter, RateLimit
    from widget_mcp.transport.endpoint import McpEndpoint
    from widget_mcp.transport.guards import CorsPolicy, HostAllowlist
    from widget_mcp.wiring import streams_for

    # Wired as build_core wires the registry's apps: the caller's rate limit counted before any work.
    settings = settings.model_copy(update={"resumable_streams": True})
    limits = RateLimit(settings.rate_limit_calls, settings.rate_limit_window_seconds)
    limiter = CallLimiter(store, limits) if settings.rate_limit_calls > 0 else None
    runtime = build_runtime(settings, [importlib.import_module(f"tests.{entry.app}").book], limiter=limiter)
    streams, subscriptions = streams_for(settings, store, runtime)
    server = build_server_of(runtime, subscriptions)
    return server, McpEndpoint(
        server,
        allowed_hosts=HostAllowlist(settings.allowed_hosts),
        max_body_bytes=settings.max_body_bytes,
        max_json_depth=settings.max_json_depth,
        max_batch_messages=settings.max_batch_messages,
        inline_tools=runtime.runs_inline,
        streams=streams,
        subscriptions=subscriptions,
        cors=CorsPolicy(settings.cors_origins),
        limiter=limiter,
    )


def build_server_of(runtime: Any, subscriptions: Any = None) -> Server[Any]:
    from widget_mcp.server import build_server

    return build_server(runtime, subscriptions=subscriptions)


async def _decline(context: Any, params: Any) -> ElicitResult:
    return ElicitResult(action="decline")


def client_for(entry: Entry, settings: Settings, store: DocumentStore) -> Client:
    """The official client (in memory, not yet entered) of the server that serves `entry`."""
    elicits = entry.capabilities is not None and "elicitation" in entry.capabilities
    return Client(_served(entry, settings, store)[0], mode="legacy", elicitation_callback=_decline if elicits else None)


class Replay:
    """An entry's steps sent to the HTTP endpoint (the one Lambda and uvicorn serve), as its client would: in a
    2025-11-25 session when the entry has one, and a step marked so in a session of its own."""

    def __init__(self, entry: Entry, endpoint: McpEndpoint) -> None:
        self.entry, self.endpoint = entry, endpoint
        self.sessions = entry.app is not None or entry.capabilities is not None
        # A session's client takes an event stream (the reply of a call that asks it mid-call).
        session = {"mcp-protocol-version": SESSION_VERSION, "accept": "application/json, text/event-stream"}
        self.headers = HEADERS | (session if self.sessions else {})
        self.ids: dict[str, str] = {}

    async def open_session(self) -> dict[str, str]:
        """The headers of a new session (after `initialize`), or of none when the entry has none."""
        if not self.sessions:
            return self.headers
        hello = {
            "protocolVersion": SESSION_VERSION,
            "capabilities": self.entry.capabilities or {},
            "clientInfo": {"name": "hostile", "version": "1"},
        }
        body = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}).encode()
        reply = await self.endpoint.handle("POST", self.headers, body)
        session = dict(reply.headers).get("mcp-session-id")
        assert reply.status == 200, reply.body[:300]
        assert session, "a 2025-11-25 initialize with resumable streams on gets a session"
        self.headers = self.headers | {"mcp-session-id": session}
        return self.headers

    async def headers_for(self, step: Step) -> dict[str, str]:
        """The headers `step` is sent with: its own session's, when it asks for one."""
        if not step.new_session or not self.sessions:
            return self.headers
        kept = self.headers
        fresh = await self.open_session()
        self.headers = kept
        return fresh

    def request(self, step: Step, headers: dict[str, str]) -> tuple[str, dict[str, str], bytes]:
        """The HTTP method, headers and body that send `step`."""
        if step.method == RESUME:
            resumed = {k: v for k, v in headers.items() if k not in ("content-type", "accept")}
            return "GET", resumed | {"accept": "text/event-stream", "last-event-id": self.ids["$eventId"]}, b""
        if step.method == POST:
            version = {"mcp-protocol-version": step.version} if step.version else {}
            return "POST", headers | version, json.dumps(_bind(step.body, self.ids)).encode()
        return "POST", headers, request_body(step, self.ids)

    async def send(self, step: Step) -> HttpReply:
        method, headers, body = self.request(step, await self.headers_for(step))
        return await self.endpoint.handle(method, headers, body)

    def read(self, step: Step, reply: HttpReply) -> tuple[str, str]:
        return read_reply(step, reply.status, dict(reply.headers), reply.body, self.ids)


async def endpoint_for(entry: Entry, settings: Settings, store: DocumentStore) -> Replay:
    """The HTTP endpoint that serves `entry`, ready to replay its steps (its session, if any, opened)."""
    replay = Replay(entry, _served(entry, settings, store)[1])
    await replay.open_session()
    return replay


def _bind(value: Any, ids: dict[str, str]) -> Any:
    if isinstance(value, str) and value in ids:
        return ids[value]
    if isinstance(value, dict):
        return {key: _bind(item, ids) for key, item in value.items()}
    if isinstance(value, list):
        return [_bind(item, ids) for item in value]
    return value


def outcome_of(result: Any) -> str:
    """ "ok", or the error code in `_meta.error` (where every error result carries it)."""
    if not result.is_error:
        return "ok"
    error = (result.meta or {}).get("error") or {}
    return str(error.get("code", "(no code)"))


def _keep_id(step: Step, structured: dict[str, Any] | None, meta: dict[str, Any] | None, ids: dict[str, str]) -> None:
    if step.tool in IDS and structured:
        placeholder, field = IDS[step.tool]
        ids[placeholder] = structured[field]
    key = (meta or {}).get(ANSWER_KEY_META)
    if step.tool == "ask_question" and isinstance(key, str):
        ids[ANSWER_KEY] = key


def _arguments(step: Step, ids: dict[str, str]) -> Any:
    """The step's tool arguments, its ids bound; submit_form's with the form's answer key, as its widget sends it."""
    arguments = _bind(step.arguments, ids)
    keyless = step.tool == "submit_form" and isinstance(arguments, dict) and "answerKey" not in arguments
    return {**arguments, "answerKey": ids[ANSWER_KEY]} if keyless and ANSWER_KEY in ids else arguments


def request_body(step: Step, ids: dict[str, str]) -> bytes:
    if step.method != "tools/call":
        params = {**step.arguments, "_meta": step.sent_meta}
        return json.dumps({"jsonrpc": "2.0", "id": 1, "method": step.method, "params": params}).encode()
    params = {"name": step.tool, "arguments": _arguments(step, ids), "_meta": step.sent_meta}
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).encode()


def _events(body: bytes) -> list[dict[str, str]]:
    """The server-sent events of an event-stream reply, each as its fields."""
    events = []
    for block in body.decode().split("\n\n"):
        if block.strip():
            fields = [line.partition(": ") for line in block.split("\n")]
            events.append({name: value for name, _, value in fields})
    return events


def read_reply(step: Step, status: int, headers: dict[str, str], body: bytes, ids: dict[str, str]) -> tuple[str, str]:
    """(outcome, message) of the endpoint's reply: `http_<status>` when it refused the request itself (or, for a raw
    POST or GET, for any status but 200); for a request other than a tool call, `error_<code>` for its JSON-RPC
    error; for an event stream, its last message's."""
    if headers.get("content-type") == "text/event-stream" and status == 200:
        events = _events(body)
        sent = [json.loads(event["data"]) for event in events if event.get("data")]
        ids["$eventId"] = events[0]["id"]
        for message in sent:
            if "method" in message and "id" in message:
                ids["$requestId"] = message["id"]
        last = sent[-1]
        if "method" in last:
            return f"stream_{last['method']}", ""
        return _read_message(step, last, ids, streamed=True)
    reply = json.loads(body) if body else {}
    if step.method in (POST, RESUME) and status != 200:
        return f"http_{status}", str(reply.get("error", {}).get("message", ""))
    if step.method not in ("tools/call", POST, RESUME) and status == 200:
        return ("ok", "") if "error" not in reply else (_error_outcome(reply["error"]), reply["error"]["message"])
    if status != 200:
        return f"http_{status}", reply["error"]["message"]
    return _read_message(step, reply, ids, streamed=False)


def _read_message(step: Step, reply: dict[str, Any], ids: dict[str, str], *, streamed: bool) -> tuple[str, str]:
    """A JSON-RPC response's outcome: a tool result's, or its error's (`http_200` for a tool call's, as sent)."""
    if "error" in reply:
        code = _error_outcome(reply["error"]) if streamed or step.method != "tools/call" else "http_200"
        return code, reply["error"]["message"]
    result = reply["result"]
    if not result.get("isError"):
        _keep_id(step, result.get("structuredContent"), result.get("_meta"), ids)
        return "ok", ""
    error = result["_meta"]["error"]
    return error["code"], error["message"]


def _error_outcome(error: dict[str, Any]) -> str:
    """A JSON-RPC error's outcome: the error code its data names (`rate_limited`), else `error_<its code>`."""
    data = error.get("data")
    return str(data["error"]) if isinstance(data, dict) and "error" in data else f"error_{error['code']}"


async def request(client: Client, step: Step) -> tuple[str, str]:
    """(outcome, message) of a step that is not a tool call, sent through `client` (already entered)."""
    uri = step.arguments["uri"]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)  # subscriptions are the 2025 era's
            if step.method == "resources/read":
                await client.read_resource(uri, meta=step.sent_meta)
            elif step.method == "resources/subscribe":
                await client.subscribe_resource(uri, meta=step.sent_meta)
            else:
                raise ValueError(f"the corpus sends no {step.method} through the client")
    except MCPError as exc:
        return _error_outcome(exc.error.model_dump()), exc.error.message
    return "ok", ""


async def call(client: Client, step: Step, ids: dict[str, str]) -> Any:
    """The step's result, called through `client` (already entered) as the step's caller; an id it returns is kept
    in `ids` for the entry's later steps."""
    result = await client.call_tool(step.tool, _arguments(step, ids), meta=step.sent_meta)
    if not result.is_error:
        _keep_id(step, result.structured_content, result.meta, ids)
    return result
