"""The corpus of hostile inputs (tests/hostile/*.json) and how to replay it through a client.

Each entry is a JSON file: `about` (what it attacks) and `steps`, each a tool call with its `arguments` and the
outcome it must get (`expect`: "ok", an error code, or `http_<status>` for a request the endpoint refuses before
any tool runs); where the in-memory client and the HTTP endpoint differ, `expect` names each:
`{"client": …, "endpoint": …}`. A step may instead be another request, `method` and `params` (`resources/read`,
`resources/subscribe`), whose JSON-RPC error is the outcome `error_<code>`. Arguments and params may hold:
- `{"$repeat": value, "times": n}`: a string repeated n times, or a list of n copies of `value`'s items;
- `{"$join": [part, …]}`: the parts (expanded) as one string;
- the text `"$formId"` / `"$gameId"`: the id the entry's last ask_question / chess_new_game returned.
An entry with `app` (a module of tests/, such as `template_shapes`) is served by that app alone, built with the
toolkit's public API, with resumable streams and subscriptions on; over the endpoint it first opens a 2025-11-25
session, whose id its steps send. Others are served by the registry's apps with the tests' settings.
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
from pydantic import SecretStr

if TYPE_CHECKING:
    from mcp.server.lowlevel.server import Server
    from widget_mcp.settings import Settings
    from widget_mcp.storage.documents import DocumentStore
    from widget_mcp.transport.endpoint import McpEndpoint

CORPUS = Path(__file__).resolve().parent / "hostile"
CALLER = {"openai/subject": "hostile-tester"}
HEADERS = {"host": "127.0.0.1:8000", "content-type": "application/json", "accept": "application/json"}
SESSION_VERSION = "2025-11-25"
# Which result field names the id later steps refer to.
IDS = {"ask_question": ("$formId", "formId"), "chess_new_game": ("$gameId", "gameId")}


@dataclass(frozen=True)
class Step:
    tool: str  # the tool called, or the request's method (`method`)
    arguments: dict[str, Any]  # the tool's arguments, or the request's params
    expect: str | dict[str, str]
    method: str = "tools/call"

    def expected(self, path: str) -> str:
        """The outcome over `path` ("client" or "endpoint")."""
        return self.expect if isinstance(self.expect, str) else self.expect[path]


@dataclass(frozen=True)
class Entry:
    name: str
    about: str
    steps: tuple[Step, ...]
    app: str | None = field(default=None)


def _expand(value: Any) -> Any:
    if isinstance(value, dict):
        if "$repeat" in value:
            item, times = value["$repeat"], value["times"]
            return item * times if isinstance(item, (str, list)) else [item] * times
        if "$join" in value:
            return "".join(_expand(part) for part in value["$join"])
        return {key: _expand(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_expand(item) for item in value]
    return value


def _step(raw: dict[str, Any]) -> Step:
    if "method" in raw:
        return Step(raw["method"], _expand(raw["params"]), raw["expect"], raw["method"])
    return Step(raw["tool"], _expand(raw["arguments"]), raw["expect"])


def load(name: str) -> Entry:
    raw = json.loads((CORPUS / f"{name}.json").read_text())
    return Entry(name, raw["about"], tuple(_step(s) for s in raw["steps"]), raw.get("app"))


def _served(entry: Entry, settings: Settings, store: DocumentStore) -> tuple[Server[Any], McpEndpoint]:
    """The server (for the in-memory client) and the endpoint that serve `entry`."""
    from widget_mcp.wiring import build_core

    if entry.app is None:
        core = build_core(settings, store=store)
        return build_server_of(core.runtime), core.endpoint
    from widget_mcp.server import build_runtime
    from widget_mcp.transport.endpoint import McpEndpoint
    from widget_mcp.transport.guards import CorsPolicy, HostAllowlist
    from widget_mcp.wiring import streams_for

    settings = settings.model_copy(update={"resumable_streams": True, "request_state_secret": SecretStr("s" * 40)})
    runtime = build_runtime(settings, [importlib.import_module(f"tests.{entry.app}").book])
    streams, subscriptions = streams_for(settings, store, runtime)
    server = build_server_of(runtime, subscriptions)
    return server, McpEndpoint(
        server,
        allowed_hosts=HostAllowlist(settings.allowed_hosts),
        max_body_bytes=settings.max_body_bytes,
        max_json_depth=settings.max_json_depth,
        inline_tools=runtime.runs_inline,
        streams=streams,
        subscriptions=subscriptions,
        cors=CorsPolicy(settings.cors_origins),
    )


def build_server_of(runtime: Any, subscriptions: Any = None) -> Server[Any]:
    from widget_mcp.server import build_server

    return build_server(runtime, subscriptions=subscriptions)


def client_for(entry: Entry, settings: Settings, store: DocumentStore) -> Client:
    """The official client (in memory, not yet entered) of the server that serves `entry`."""
    return Client(_served(entry, settings, store)[0], mode="legacy")


async def endpoint_for(entry: Entry, settings: Settings, store: DocumentStore) -> tuple[McpEndpoint, dict[str, str]]:
    """The HTTP endpoint that serves `entry`, and the headers its steps send (with an app: a session's)."""
    endpoint = _served(entry, settings, store)[1]
    if entry.app is None:
        return endpoint, HEADERS
    headers = HEADERS | {"mcp-protocol-version": SESSION_VERSION}
    hello = {"protocolVersion": SESSION_VERSION, "capabilities": {}, "clientInfo": {"name": "hostile", "version": "1"}}
    body = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}).encode()
    reply = await endpoint.handle("POST", headers, body)
    session = dict(reply.headers).get("mcp-session-id")
    assert reply.status == 200, reply.body[:300]
    assert session, "a 2025-11-25 initialize with resumable streams on gets a session"
    return endpoint, headers | {"mcp-session-id": session}


def names() -> list[str]:
    return sorted(path.stem for path in CORPUS.glob("*.json"))


def _bind(value: Any, ids: dict[str, str]) -> Any:
    if isinstance(value, str) and value in ids:
        return ids[value]
    if isinstance(value, dict):
        return {key: _bind(item, ids) for key, item in value.items()}
    return value


def outcome_of(result: Any) -> str:
    """ "ok", or the error code in `_meta.error` (where every error result carries it)."""
    if not result.is_error:
        return "ok"
    error = (result.meta or {}).get("error") or {}
    return str(error.get("code", "(no code)"))


def _keep_id(step: Step, structured: dict[str, Any] | None, ids: dict[str, str]) -> None:
    if step.tool in IDS and structured:
        placeholder, field = IDS[step.tool]
        ids[placeholder] = structured[field]


def request_body(step: Step, ids: dict[str, str]) -> bytes:
    if step.method != "tools/call":
        params = {**step.arguments, "_meta": CALLER}
        return json.dumps({"jsonrpc": "2.0", "id": 1, "method": step.method, "params": params}).encode()
    params = {"name": step.tool, "arguments": _bind(step.arguments, ids), "_meta": CALLER}
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).encode()


def read_reply(step: Step, status: int, body: bytes, ids: dict[str, str]) -> tuple[str, str]:
    """(outcome, message) of the endpoint's reply: `http_<status>` when it refused the request itself; for a
    request other than a tool call, `error_<code>` for its JSON-RPC error."""
    reply = json.loads(body)
    if step.method != "tools/call" and status == 200:
        return ("ok", "") if "error" not in reply else (f"error_{reply['error']['code']}", reply["error"]["message"])
    if status != 200 or "error" in reply:
        return f"http_{status}", reply["error"]["message"]
    result = reply["result"]
    if not result.get("isError"):
        _keep_id(step, result.get("structuredContent"), ids)
        return "ok", ""
    error = result["_meta"]["error"]
    return error["code"], error["message"]


async def request(client: Client, step: Step) -> tuple[str, str]:
    """(outcome, message) of a step that is not a tool call, sent through `client` (already entered)."""
    uri = step.arguments["uri"]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)  # subscriptions are the 2025 era's
            if step.method == "resources/read":
                await client.read_resource(uri, meta=CALLER)
            elif step.method == "resources/subscribe":
                await client.subscribe_resource(uri, meta=CALLER)
            else:
                raise ValueError(f"the corpus sends no {step.method} through the client")
    except MCPError as exc:
        return f"error_{exc.error.code}", exc.error.message
    return "ok", ""


async def call(client: Client, step: Step, ids: dict[str, str]) -> Any:
    """The step's result, called through `client` (already entered) as the corpus's one caller; an id it
    returns is kept in `ids` for the entry's later steps."""
    result = await client.call_tool(step.tool, _bind(step.arguments, ids), meta=CALLER)
    if not result.is_error:
        _keep_id(step, result.structured_content, ids)
    return result
