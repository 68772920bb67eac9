"""
title: widget-mcp
author: widget-mcp
version: 0.2.0
license: MIT
required_open_webui_version: 0.12.4
description: Every tool of a widget-mcp server for any tool-calling model, with status, citations and playable widgets.
"""

# One Open WebUI plugin file, installable as it is, two ways:
# - as a Tool (Workspace → Tools → import, or POST /api/v1/tools/create): Open WebUI loads `Tools`, offers the
#   server's tools to whichever model the chat uses and writes the message itself;
# - as a Function (Admin Panel → Functions → import, or POST /api/v1/functions/create): Open WebUI loads `Pipe`, a
#   model of its own that wraps the model named in its MODEL_ID valve, runs the tool calls and writes the message:
#   the steps in one collapsed "Execution Steps (N tools)" block, then the answer.
# It runs inside Open WebUI's process with Open WebUI's own dependencies (httpx, pydantic, fastapi) and nothing else.
#
# - Discovery: the server's `tools/list` becomes the functions offered, each named as the MCP tool and taking its
#   input schema, so nothing here is written per tool. Open WebUI computes a Tool's specs when the tool is saved:
#   after the server's tool list changes, save the tool again (the Pipe reads the list on every chat turn).
# - Events (the typed-event mapping): a status while a tool runs, a citation with the result (a preview of at most
#   500 characters, the full result in its metadata), a final status; an error result is a failed tool call whose
#   sentence the model and the user read.
# - Widgets: a result with a template (`_meta.ui.resourceUri`) is shown as an inline embed. The embed is a small
#   MCP Apps host: it hands the widget its tool input and result, and forwards the widget's own `tools/call` to the
#   server with a short-lived token that names the user and opens only the tools a widget may call. No Open WebUI
#   credential ever reaches the embed.
# - Identity: with HOST_TOKEN_SECRET (the same secret as the server's), every call carries a token signed for the
#   Open WebUI user (`__user__["id"]`), so each user has their own games and forms and no user can act as another.
#   With sign-in on at the server, each user's ACCESS_TOKEN (a user valve) is sent instead.

from __future__ import annotations

import base64
import hashlib
import hmac
import html
import inspect
import json
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field
from pydantic_core import core_schema

# MCP 2026-07-28: every request says what the client can do, so the server knows this pipe shows widgets (the
# MCP Apps extension, which its embeds host) and sends forms as widgets, never as text for a client without them.
PROTOCOL_VERSION = "2026-07-28"
APPS_EXTENSION = "io.modelcontextprotocol/ui"
CLIENT_META = {
    "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
    "io.modelcontextprotocol/clientInfo": {"name": "widget-mcp-openwebui", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {
        "extensions": {APPS_EXTENSION: {"mimeTypes": ["text/html;profile=mcp-app"]}}
    },
}
TOKEN_HEADER = "x-widget-mcp-user"  # noqa: S105 - a header's name, not a secret
PREVIEW_CHARS = 500
STEP_PREVIEW_CHARS = 200
DISCOVERY_TIMEOUT = 10.0
RETRY_DISCOVERY_AFTER = 30.0
# What Open WebUI passes to a tool function by name, besides the model's arguments.
RESERVED = ("__user__", "__event_emitter__")
Emitter = Callable[[dict[str, Any]], Awaitable[Any]]
UNSIGNED_NOTE = (
    "Moves made here need the server's host token: ask the administrator to set HOST_TOKEN_SECRET on the server "
    "and in this tool's settings. You can still ask the model to play."
)
SIGNED_IN_NOTE = (
    "With sign-in on, a widget in Open WebUI cannot call the server itself (it would need your access token in "
    "the chat's page): ask the model to make the move instead."
)


class McpFailure(Exception):
    """A call that got no tool result: the server is unreachable, refused the request, or answered an error."""

    def __init__(self, code: str, sentence: str) -> None:
        super().__init__(sentence)
        self.code = code
        self.sentence = sentence


class ServerValves(BaseModel):
    """What both forms share: where the server is, the identity secret, and what is shown."""

    MCP_URL: str = Field(
        default="http://127.0.0.1:8000/mcp",
        description="The widget-mcp server's MCP endpoint, as Open WebUI's server reaches it.",
    )
    BROWSER_MCP_URL: str = Field(
        default="",
        description="The same endpoint as your users' browsers reach it, for the widgets' own calls (empty: MCP_URL).",
    )
    HOST_TOKEN_SECRET: str = Field(
        default="",
        description="The server's HOST_TOKEN_SECRET: each call then names its Open WebUI user (own games and "
        "forms), and widgets can call the server from Open WebUI's sandboxed frame. Empty: no identity, "
        "and widgets only display.",
    )
    WIDGET_TOKEN_HOURS: int = Field(default=12, ge=1, le=168, description="How long a widget in a chat stays playable.")
    SHOW_TOOL_CITATIONS: bool = Field(default=True, description="Show each tool result as a citation.")
    SHOW_STATUS: bool = Field(default=True, description="Show a status while a tool runs, and when it ends.")
    REQUEST_TIMEOUT: int = Field(default=300, ge=1, le=3600, description="Seconds to wait for one call.")


class UserValves(BaseModel):
    ACCESS_TOKEN: str = Field(
        default="",
        description="When the server has sign-in on: an OAuth access token for it (sent as Bearer).",
    )


@dataclass
class Outcome:
    """One tool call as both forms show it: the result (None when no result came), what the model reads, the
    sentence of a failure, and the widget's embed page when the result has one."""

    name: str
    result: dict[str, Any] | None
    for_model: dict[str, Any]
    failure: str | None = None
    embed: str | None = None


class ServerCalls:
    """Calls to the server for one Open WebUI user, with the events they show."""

    def __init__(self) -> None:
        self._templates: dict[str, dict[str, Any]] = {}  # template URIs are content-hashed: a cached one never changes

    async def call(
        self,
        valves: ServerValves,
        catalog: dict[str, dict[str, Any]],
        tool: dict[str, Any],
        arguments: dict[str, Any],
        user: dict[str, Any] | None,
        emit: Emitter | None,
    ) -> Outcome:
        name = tool["name"]
        meta = tool.get("_meta") or {}
        events = _Events(emit, valves.SHOW_STATUS, valves.SHOW_TOOL_CITATIONS)
        await events.status(meta.get("openai/toolInvocation/invoking") or f"Running {name}…", done=False)
        call = {"name": name, "arguments": arguments}
        try:
            headers = _headers(valves, user, "call")
            result = await _request(valves.MCP_URL, "tools/call", call, headers, valves.REQUEST_TIMEOUT)
        except (McpFailure, httpx.HTTPError) as exc:
            failure = exc if isinstance(exc, McpFailure) else _transport_failure(exc, valves.MCP_URL)
            await events.status(f"{name} failed: {failure.sentence}", done=True)
            return Outcome(name, None, {"error": failure.sentence, "code": failure.code}, failure.sentence)
        await events.citation(name, _result_text(result), result)
        if result.get("isError"):
            error = (result.get("_meta") or {}).get("error") or {}
            sentence = _content_text(result) or str(error.get("message") or "The tool failed.")
            await events.status(f"{name} failed: {sentence}", done=True)
            return Outcome(name, result, {"error": sentence, "code": error.get("code", "tool_error")}, sentence)
        await events.status(meta.get("openai/toolInvocation/invoked") or f"{name} done", done=True)
        context = {"content": _content_text(result), "structuredContent": result.get("structuredContent")}
        outcome = Outcome(name, result, context)
        uri = (meta.get("ui") or {}).get("resourceUri") or meta.get("openai/outputTemplate")
        if not uri:
            return outcome
        try:
            template = await self._template(valves, uri, user)
        except (McpFailure, httpx.HTTPError):
            return outcome  # the model still has the result; the widget is a bonus
        token, note = _widget_token(valves, user)
        outcome.embed = _embed_page(
            template,
            tool_name=name,
            tool_input=arguments,
            tool_result=result,
            mcp_url=valves.BROWSER_MCP_URL or valves.MCP_URL,
            token=token,
            no_token_note=note,
            widget_tools=sorted(
                n for n, t in catalog.items() if (t.get("_meta") or {}).get("openai/widgetAccessible") is True
            ),
        )
        return outcome

    async def _template(self, valves: ServerValves, uri: str, user: dict[str, Any] | None) -> dict[str, Any]:
        if uri not in self._templates:
            read = await _request(valves.MCP_URL, "resources/read", {"uri": uri}, _headers(valves, user, None), 30)
            contents = read.get("contents") or []
            if not contents or not isinstance(contents[0].get("text"), str):
                raise McpFailure("template_missing", f"The server has no template {uri}.")
            self._templates[uri] = contents[0]
        return self._templates[uri]


def _access_token(user: dict[str, Any] | None) -> str:
    return str(getattr((user or {}).get("valves"), "ACCESS_TOKEN", "") or "")


def _headers(valves: ServerValves, user: dict[str, Any] | None, scope: str | None) -> dict[str, str]:
    headers: dict[str, str] = {}
    access = _access_token(user)
    if access:
        headers["authorization"] = f"Bearer {access}"
    elif scope and valves.HOST_TOKEN_SECRET and user and user.get("id"):
        lifetime = max(valves.REQUEST_TIMEOUT, 60) + 60
        headers[TOKEN_HEADER] = _sign(valves.HOST_TOKEN_SECRET, str(user["id"]), scope, lifetime)
    return headers


def _widget_token(valves: ServerValves, user: dict[str, Any] | None) -> tuple[str, str]:
    """The token the widget's own calls carry, or why it has none (said in the embed when the widget calls)."""
    if _access_token(user):
        return "", SIGNED_IN_NOTE
    if not (valves.HOST_TOKEN_SECRET and user and user.get("id")):
        return "", UNSIGNED_NOTE
    lifetime = valves.WIDGET_TOKEN_HOURS * 3600
    return _sign(valves.HOST_TOKEN_SECRET, str(user["id"]), "widget", lifetime), ""


class Tools:
    class Valves(ServerValves):
        pass

    class UserValves(UserValves):
        pass

    def __init__(self) -> None:
        self.valves = self.Valves(**_saved_valves(self.Valves))
        self.citation = False  # this toolkit emits its own citations
        self._catalog: dict[str, dict[str, Any]] = {}  # every tool the server lists
        self._functions: dict[str, Callable[..., Awaitable[Any]]] = {}
        self._discovered_at = 0.0
        self._calls = ServerCalls()
        self._discover()

    # --- discovery: the server's tools as this toolkit's functions ---

    def _discover(self) -> None:
        self._discovered_at = time.monotonic()
        try:
            tools = _list_tools(self.valves.MCP_URL)
        except (McpFailure, httpx.HTTPError, ValueError):
            return  # retried on first use, with the valves set by then
        self._catalog = {t["name"]: t for t in tools}
        self._functions = {t["name"]: self._function(t) for t in tools if _offered_to_model(t)}

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *self._functions})

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        functions = self.__dict__.get("_functions", {})
        stale = time.monotonic() - self.__dict__.get("_discovered_at", 0.0) > RETRY_DISCOVERY_AFTER
        if name not in functions and stale:
            self._discover()
            functions = self._functions
        if name in functions:
            return functions[name]
        raise AttributeError(name)

    def _function(self, tool: dict[str, Any]) -> Callable[..., Awaitable[Any]]:
        """A function Open WebUI reads as it reads a method: its name, docstring and typed keyword parameters
        (each parameter's JSON Schema carried as is), plus the reserved parameters it fills in."""
        name = tool["name"]
        schema = _inline_refs(tool.get("inputSchema") or {})
        required = set(schema.get("required") or [])
        parameters, annotations = [], {}
        for prop, prop_schema in (schema.get("properties") or {}).items():
            default = inspect.Parameter.empty if prop in required else None
            annotations[prop] = _schema_type(f"{name}.{prop}", prop_schema)
            parameters.append(_parameter(prop, default, annotations[prop]))
        for reserved in RESERVED:
            annotations[reserved] = Any
            parameters.append(inspect.Parameter(reserved, inspect.Parameter.KEYWORD_ONLY, default=None))

        async def call_tool(**kwargs: Any) -> Any:
            arguments = {k: v for k, v in kwargs.items() if k not in RESERVED and v is not None}
            return await self._run(tool, arguments, kwargs.get("__user__"), kwargs.get("__event_emitter__"))

        call_tool.__name__ = call_tool.__qualname__ = name
        call_tool.__doc__ = tool.get("description") or tool.get("title") or name
        call_tool.__annotations__ = annotations
        call_tool.__signature__ = inspect.Signature(parameters, __validate_parameters__=False)  # type: ignore[attr-defined]
        return call_tool

    async def _run(
        self, tool: dict[str, Any], arguments: dict[str, Any], user: dict[str, Any] | None, emit: Emitter | None
    ) -> Any:
        outcome = await self._calls.call(self.valves, self._catalog, tool, arguments, user, emit)
        if outcome.embed is None:
            return outcome.for_model
        return HTMLResponse(outcome.embed, headers={"Content-Disposition": "inline"}), outcome.for_model


class Pipe:
    """A model of its own that wraps MODEL_ID: it offers the server's tools to that model, runs its tool calls,
    and writes the message itself: every step (the model's words between tools, each tool with a 200-character
    preview, HTML-escaped) in one collapsed "Execution Steps (N tools)" block, then the answer.
    Statuses and citations show each tool while it runs; widgets are embedded under the message."""

    class Valves(ServerValves):
        MODEL_ID: str = Field(
            default="",
            description="The Open WebUI model this pipe wraps (its id, as in the model selector); it must call tools "
            "natively.",
        )
        MAX_TOOL_ROUNDS: int = Field(
            default=8, ge=1, le=50, description="At most this many rounds of tool calls per answer."
        )

    class UserValves(UserValves):
        pass

    def __init__(self) -> None:
        self.valves = self.Valves()
        self._calls = ServerCalls()

    async def pipe(
        self,
        body: dict[str, Any],
        __user__: dict[str, Any] | None = None,
        __event_emitter__: Emitter | None = None,
        __request__: Any = None,
    ) -> str:
        valves = self.valves
        if not valves.MODEL_ID or body.get("model") == valves.MODEL_ID:
            return "Set this pipe's MODEL_ID valve to the model it should wrap (a model that calls tools)."
        try:
            catalog = {t["name"]: t for t in await _list_tools_async(valves.MCP_URL)}
        except (McpFailure, httpx.HTTPError) as exc:
            failure = exc if isinstance(exc, McpFailure) else _transport_failure(exc, valves.MCP_URL)
            return _escaped(failure.sentence)  # the message is markdown, and the sentence may quote the server
        offered = [_function_spec(t) for t in catalog.values() if _offered_to_model(t)]
        messages: list[dict[str, Any]] = [dict(m) for m in body.get("messages") or []]
        steps: list[str] = []
        calls_made = 0
        for round_number in range(valves.MAX_TOOL_ROUNDS + 1):
            tools = offered if round_number < valves.MAX_TOOL_ROUNDS else []
            reply = await _ask_model(__request__, __user__, valves.MODEL_ID, messages, tools)
            calls = reply.get("tool_calls") or []
            if not calls:
                return _steps_block(steps, calls_made) + str(reply.get("content") or "")
            if reply.get("content"):
                steps.append(f"**🤖 AI:** {_escaped(str(reply['content']))}")
            messages.append({"role": "assistant", "content": reply.get("content") or "", "tool_calls": calls})
            for call in calls:
                outcome = await self._run(catalog, call, __user__, __event_emitter__)
                calls_made += 1
                steps.append(f"**🔧 {_escaped(outcome.name)}:** {_step_preview(outcome)}")
                if outcome.embed and __event_emitter__:
                    await __event_emitter__({"type": "embeds", "data": {"embeds": [outcome.embed]}})
                content = json.dumps(outcome.for_model, ensure_ascii=False)
                messages.append({"role": "tool", "tool_call_id": call.get("id", ""), "content": content})
        return _steps_block(steps, calls_made)  # not reached: the last round offers no tools

    async def _run(
        self,
        catalog: dict[str, dict[str, Any]],
        call: dict[str, Any],
        user: dict[str, Any] | None,
        emit: Emitter | None,
    ) -> Outcome:
        function = call.get("function") or {}
        name = str(function.get("name") or "")
        tool = catalog.get(name)
        if tool is None or not _offered_to_model(tool):
            sentence = f"There is no tool {name!r}."
            return Outcome(name, None, {"error": sentence, "code": "unknown_tool"}, sentence)
        try:
            arguments = json.loads(function.get("arguments") or "{}")
        except ValueError:
            arguments = None
        if not isinstance(arguments, dict):
            sentence = f"The arguments for {name} are not a JSON object."
            return Outcome(name, None, {"error": sentence, "code": "invalid_arguments"}, sentence)
        return await self._calls.call(self.valves, catalog, tool, arguments, user, emit)


async def _ask_model(
    request: Any, user: dict[str, Any] | None, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
) -> dict[str, Any]:
    """One answer of the wrapped model, through Open WebUI (its connections, keys and access rules)."""
    from open_webui.models.users import Users
    from open_webui.utils.chat import generate_chat_completion

    account = await Users.get_user_by_id(str((user or {}).get("id") or ""))
    form: dict[str, Any] = {"model": model, "messages": messages, "stream": False}
    if tools:
        form["tools"] = tools
    answer = await generate_chat_completion(request, form, user=account)
    if not isinstance(answer, dict):  # an upstream error comes back as a response
        body = getattr(answer, "body", b"")
        raise McpFailure("model_failed", f"The model {model} failed: {body.decode('utf-8', 'replace')[:300]}")
    choices = answer.get("choices") or [{}]
    message = choices[0].get("message") or {}
    return message if isinstance(message, dict) else {}


def _function_spec(tool: dict[str, Any]) -> dict[str, Any]:
    schema = _inline_refs(tool.get("inputSchema") or {"type": "object", "properties": {}})
    description = tool.get("description") or tool.get("title") or tool["name"]
    return {"type": "function", "function": {"name": tool["name"], "description": description, "parameters": schema}}


# Markdown's marks (links, images, code, tables, emphasis), backslash-escaped.
_MARKS = re.compile(r"([\\`*\[\]|~])")
# What GFM links by itself: a scheme before its colon (http, https, ftp, mailto, xmpp), `www` before its dot, and an
# email's at sign. An invisible word joiner there breaks the link and the text still reads as itself; a backslash
# escape would not do: Open WebUI's renderer shows some (`\.` after an entity) as typed.
_LINKABLE = re.compile(r"(?i)(https?|ftps?|mailto|xmpp|www)(?=[:.])|(?=@)")
_JOINER = "\u2060"


def _escaped(text: str) -> str:
    """Text that stays text in Open WebUI's markdown: on one line, HTML escaped (it cannot open or close an
    element, the steps block included, nor make a `<...>` autolink), markdown's marks escaped, and nothing a GFM
    renderer would turn into a link (bare URLs, `www.` hosts, emails)."""
    flat = " ".join(text.split())
    marked = _MARKS.sub(r"\\\1", html.escape(flat, quote=True))
    return _LINKABLE.sub(lambda m: (m.group(1) or "") + _JOINER, marked)


def _step_preview(outcome: Outcome) -> str:
    """A step's preview: the result's text, at most 200 characters then "...", or "✓ completed" when empty."""
    if outcome.failure is not None:
        return "✗ " + _escaped(_truncated(outcome.failure))
    return _escaped(_truncated(" ".join(_result_text(outcome.result or {}).split())))


def _truncated(text: str) -> str:
    return text if len(text) <= STEP_PREVIEW_CHARS else text[:STEP_PREVIEW_CHARS] + "..."


def _steps_block(steps: list[str], tools: int) -> str:
    if not steps:
        return ""
    header = f"🔍 Execution Steps ({tools} {'tool' if tools == 1 else 'tools'})"
    return f"<details>\n<summary>{header}</summary>\n\n" + "\n\n".join(steps) + "\n\n</details>\n\n"


class _Events:
    """The typed events as Open WebUI events: tool_start a status, tool_end a citation (`source`), then a final
    status."""

    def __init__(self, emit: Emitter | None, show_status: bool, show_citations: bool) -> None:
        self._emit = emit
        self._status = show_status
        self._citations = show_citations

    async def status(self, description: str, *, done: bool) -> None:
        if self._emit and self._status:
            await self._emit({"type": "status", "data": {"description": description, "done": done}})

    async def citation(self, name: str, text: str, result: dict[str, Any]) -> None:
        if self._emit and self._citations:
            full = json.dumps(result, ensure_ascii=False)
            source = {"name": f"🔧 {name}"}
            metadata = [{"source": name, "full_result": full}]
            data = {"source": source, "document": [text[:PREVIEW_CHARS]], "metadata": metadata}
            await self._emit({"type": "source", "data": data})


def _saved_valves(valves: type[BaseModel]) -> dict[str, Any]:
    """The valves an admin saved for this tool, read when Open WebUI loads it (it sets them only later, per
    chat): the tool list is read from MCP_URL when the tool is saved. Empty when they cannot be read."""
    match = re.match(r"^tool_(\w+)_[0-9a-f]{32}$", __name__)  # Open WebUI names the module tool_<id>_<uuid>
    if not match:
        return {}
    try:
        from open_webui.internal.db import engine
        from open_webui.models.tools import Tool
        from open_webui.utils.valves import decrypt_valves
        from sqlalchemy.orm import Session

        with Session(engine) as session:
            row = session.get(Tool, match.group(1))
            saved = decrypt_valves(row.valves) if row is not None else {}
        return {k: v for k, v in (saved or {}).items() if k in valves.model_fields}
    except Exception:  # noqa: BLE001 - any failure means the defaults, as on a first install
        return {}


# --- MCP over plain HTTP JSON-RPC (JSON or SSE answers) ---

_ids = iter(range(1, 1 << 62))


def _body(method: str, params: dict[str, Any] | None) -> dict[str, Any]:
    sent = {**(params or {}), "_meta": {**((params or {}).get("_meta") or {}), **CLIENT_META}}
    return {"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": sent}


def _http_headers(extra: dict[str, str], body: dict[str, Any]) -> dict[str, str]:
    """The request's headers: 2026-07-28's routing headers (its method, and the tool or resource it names)."""
    named = body["params"].get("name") or body["params"].get("uri")
    return {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": PROTOCOL_VERSION,
        "mcp-method": body["method"],
        **({"mcp-name": named} if isinstance(named, str) else {}),
        **extra,
    }


def _answer(response: httpx.Response, request_id: int) -> dict[str, Any]:
    kind = response.headers.get("content-type", "")
    messages: list[Any] = []
    if kind.startswith("text/event-stream"):
        for line in response.text.splitlines():
            if line.startswith("data:"):
                try:
                    messages.append(json.loads(line[5:]))
                except ValueError:
                    continue
    else:
        try:
            messages.append(response.json())
        except ValueError:
            messages = []
    for message in messages:
        if isinstance(message, dict) and message.get("id") == request_id:
            if isinstance(message.get("error"), dict):
                error = message["error"]
                raise McpFailure(str(error.get("code")), _refusal_sentence(response.status_code, error))
            result = message.get("result")
            if isinstance(result, dict):
                return result
    if response.status_code >= 400:
        raise McpFailure(f"http_{response.status_code}", f"The MCP server answered HTTP {response.status_code}.")
    raise McpFailure("bad_answer", "The MCP server's answer was not a JSON-RPC result.")


def _refusal_sentence(status: int, error: dict[str, Any]) -> str:
    message = str(error.get("message") or "the request was refused")
    host_token = "host token" in message.lower()
    if status == 401 and (not host_token or "sign-in is on" in message.lower()):
        return (
            f"The MCP server has sign-in on ({message}): set your access token for it in this tool's user "
            "settings (ACCESS_TOKEN)."
        )
    if status == 401:
        return (
            f"The MCP server refused this tool's host token ({message}): ask the administrator to set the same "
            "HOST_TOKEN_SECRET on the server and in this tool's settings."
        )
    return f"The MCP server refused the call: {message}"


def _list_tools(url: str) -> list[dict[str, Any]]:
    with httpx.Client(timeout=DISCOVERY_TIMEOUT) as client:
        tools: list[dict[str, Any]] = []
        params: dict[str, Any] | None = None
        for _page in range(50):
            body = _body("tools/list", params)
            answer = _answer(client.post(url, json=body, headers=_http_headers({}, body)), body["id"])
            tools.extend(t for t in answer.get("tools") or [] if isinstance(t, dict) and isinstance(t.get("name"), str))
            cursor = answer.get("nextCursor")
            if not cursor:
                return tools
            params = {"cursor": cursor}
    return tools


async def _list_tools_async(url: str) -> list[dict[str, Any]]:
    async with httpx.AsyncClient(timeout=DISCOVERY_TIMEOUT) as client:
        tools: list[dict[str, Any]] = []
        params: dict[str, Any] | None = None
        for _page in range(50):
            body = _body("tools/list", params)
            answer = _answer(await client.post(url, json=body, headers=_http_headers({}, body)), body["id"])
            tools.extend(t for t in answer.get("tools") or [] if isinstance(t, dict) and isinstance(t.get("name"), str))
            cursor = answer.get("nextCursor")
            if not cursor:
                return tools
            params = {"cursor": cursor}
    return tools


async def _request(
    url: str, method: str, params: dict[str, Any], headers: dict[str, str], seconds: float
) -> dict[str, Any]:
    body = _body(method, params)
    async with httpx.AsyncClient(timeout=seconds) as client:
        response = await client.post(url, json=body, headers=_http_headers(headers, body))
    return _answer(response, body["id"])


def _transport_failure(exc: httpx.HTTPError, url: str) -> McpFailure:
    if isinstance(exc, httpx.TimeoutException):
        return McpFailure("timeout", f"The MCP server at {url} did not answer in time (REQUEST_TIMEOUT).")
    return McpFailure("unreachable", f"The MCP server at {url} could not be reached ({type(exc).__name__}).")


def _offered_to_model(tool: dict[str, Any]) -> bool:
    """MCP Apps' app-only tools (`ui.visibility` without "model") are the widget's, never the model's."""
    visibility = ((tool.get("_meta") or {}).get("ui") or {}).get("visibility")
    return not isinstance(visibility, list) or "model" in visibility


def _parameter(name: str, default: Any, annotation: Any) -> inspect.Parameter:
    """A keyword parameter, even for a name Python reserves (`from`): Open WebUI only reads its fields."""
    parameter = inspect.Parameter("p", inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
    parameter._name = name  # type: ignore[attr-defined]  # Parameter keeps its name in a slot
    return parameter


def _schema_type(label: str, schema: dict[str, Any]) -> type:
    """A type whose JSON Schema is `schema`, as is: Open WebUI builds each parameter's schema from its type hint
    (through pydantic), and reads the hints without `Annotated` extras."""
    frozen = json.loads(json.dumps(schema))

    def core(cls: type, source: Any, handler: Any) -> Any:
        return core_schema.any_schema()

    def json_schema(cls: type, core: Any, handler: Any) -> dict[str, Any]:
        return dict(json.loads(json.dumps(frozen)))

    hooks = {
        "__get_pydantic_core_schema__": classmethod(core),
        "__get_pydantic_json_schema__": classmethod(json_schema),
    }
    return type(label, (), hooks)


def _inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with local `$ref`s replaced by what they point to: each parameter's schema must stand alone."""
    defs = {**(schema.get("definitions") or {}), **(schema.get("$defs") or {})}

    def walk(node: Any, depth: int) -> Any:
        if depth > 20:
            return {}
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and re.match(r"^#/(\$defs|definitions)/", ref):
                target = defs.get(ref.split("/")[-1], {})
                rest = {k: v for k, v in node.items() if k != "$ref"}
                return walk({**target, **rest}, depth + 1)
            return {k: walk(v, depth + 1) for k, v in node.items() if k not in ("$defs", "definitions")}
        if isinstance(node, list):
            return [walk(v, depth + 1) for v in node]
        return node

    return dict(walk(schema, 0))


def _content_text(result: dict[str, Any]) -> str:
    """The result's text blocks, less the one that serializes its structuredContent (the server writes it for clients
    that pass on only text; this pipe hands the model and the citation structuredContent itself)."""
    structured = result.get("structuredContent")
    parts = [c.get("text", "") for c in result.get("content") or [] if isinstance(c, dict) and c.get("type") == "text"]
    return "\n".join(p for p in parts if p and not (structured is not None and _serializes(p, structured)))


def _serializes(text: str, structured: Any) -> bool:
    if not text.startswith("{"):
        return False
    try:
        return bool(json.loads(text) == structured)
    except ValueError:
        return False


def _result_text(result: dict[str, Any]) -> str:
    text = _content_text(result)
    structured = result.get("structuredContent")
    if structured is not None:
        text = f"{text}\n{json.dumps(structured, ensure_ascii=False)}" if text else json.dumps(structured)
    return text or "✓ completed"


# --- host tokens (the server's widget_mcp.auth.host_tokens, standard library only) ---


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _sign(secret: str, subject: str, scope: str, lifetime_seconds: int) -> str:
    issued = int(time.time())
    claims = {"iss": "openwebui", "sub": subject, "scope": scope, "iat": issued, "exp": issued + lifetime_seconds}
    head = _b64(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    body = _b64(json.dumps(claims, separators=(",", ":")).encode())
    mac = hmac.new(secret.encode(), f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{_b64(mac)}"


# --- the embed: a small MCP Apps host around the widget ---


def _csp(resource_meta: dict[str, Any], script_hashes: list[str]) -> str:
    """The widget's Content-Security-Policy from its resource's `_meta.ui.csp`, as MCP Apps hosts build it."""
    declared = (resource_meta.get("ui") or {}).get("csp") or {}

    def origins(key: str) -> list[str]:
        values = declared.get(key) or []
        return [v for v in values if isinstance(v, str) and re.match(r"^[a-z]+://[^\s;,'\"]+$", v, re.I)]

    hashes = ["'" + h + "'" for h in script_hashes]
    resources, connect = origins("resourceDomains"), origins("connectDomains")
    frames, bases = origins("frameDomains"), origins("baseUriDomains")

    def either(values: list[str]) -> str:
        return " ".join(values) if values else "'none'"

    return "; ".join(
        [
            "default-src 'none'",
            f"script-src {either(resources + hashes)}",
            f"style-src {either(resources)}",
            f"img-src {' '.join([*resources, 'data:', 'blob:'])}",
            f"font-src {' '.join([*resources, 'data:'])}",
            f"media-src {either(resources)}",
            f"connect-src {either(connect)}",
            f"frame-src {either(frames)}",
            f"base-uri {either(bases)}",
            "form-action 'none'",
        ]
    )


# In the widget's own document, first: a form's submit button submits through the form's submit event even where
# the frame may not submit forms (Open WebUI's tool embeds have no allow-forms); the widget never navigates.
_SUBMIT_SCRIPT = (
    "document.addEventListener('click',function(e){var b=e.target&&e.target.closest&&"
    "e.target.closest('button[type=submit],input[type=submit]');if(!b||!b.form)return;e.preventDefault();"
    "b.form.dispatchEvent(new SubmitEvent('submit',{bubbles:true,cancelable:true,submitter:b}));},true);"
)


def _embed_page(
    template: dict[str, Any],
    *,
    tool_name: str,
    tool_input: dict[str, Any],
    tool_result: dict[str, Any],
    mcp_url: str,
    token: str,
    no_token_note: str,
    widget_tools: list[str],
) -> str:
    script_hash = "sha256-" + base64.b64encode(hashlib.sha256(_SUBMIT_SCRIPT.encode()).digest()).decode()
    csp = _csp(template.get("_meta") or {}, [script_hash])
    head = f'<meta http-equiv="Content-Security-Policy" content="{html.escape(csp)}"><script>{_SUBMIT_SCRIPT}</script>'
    widget_html = re.sub(r"<head>", lambda _m: "<head>" + head, template["text"], count=1, flags=re.I)
    config = {
        "html": widget_html,
        "toolName": tool_name,
        "toolInput": tool_input,
        "toolResult": tool_result,
        "mcpUrl": mcp_url,
        "token": token,
        "noTokenNote": no_token_note,
        "widgetTools": widget_tools,
        "prefersBorder": bool(((template.get("_meta") or {}).get("ui") or {}).get("prefersBorder")),
    }
    # `<` escaped: the JSON cannot close its script element, whatever a result holds.
    data = json.dumps(config, ensure_ascii=False).replace("<", "\\u003c").replace("\u2028", "\\u2028")
    return _HOST_PAGE.replace("__CONFIG__", data.replace("\u2029", "\\u2029"))


_HOST_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<style>html,body{margin:0;padding:0;background:transparent}iframe{display:block;width:100%;border:0;height:120px}
#note{font:13px system-ui,sans-serif;color:#b42318;padding:4px 2px}#note:empty{display:none}</style></head>
<body data-widget-mcp-embed>
<iframe id="widget" title="widget" sandbox="allow-scripts allow-forms"></iframe>
<div id="note" role="status"></div>
<script type="application/json" id="config">__CONFIG__</script>
<script>
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("config").textContent);
  var frame = document.getElementById("widget");
  var note = document.getElementById("note");
  var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  var nextId = 1;
  var initialized = false;

  function post(message) { frame.contentWindow.postMessage(message, "*"); }
  function reply(id, result) { post({ jsonrpc: "2.0", id: id, result: result }); }
  function fail(id, message) { post({ jsonrpc: "2.0", id: id, error: { code: -32603, message: message } }); }
  function height(h) {
    var px = Math.max(60, Math.min(Math.ceil(h), 4000));
    frame.style.height = px + "px";
    var total = px + note.getBoundingClientRect().height;
    parent.postMessage({ type: "iframe:height", height: Math.ceil(total) }, "*");
  }
  function errorResult(code, message) {
    return { isError: true, content: [{ type: "text", text: message }],
      _meta: { error: { code: code, message: message } } };
  }

  function callTool(params) {
    var name = params && params.name;
    if (config.widgetTools.indexOf(name) < 0) {
      return Promise.resolve(errorResult("not_allowed", "This widget may not call " + name + "."));
    }
    if (!config.token) {
      var text = config.noTokenNote;
      note.textContent = text;
      return Promise.resolve(errorResult("identity_required", text));
    }
    var body = { jsonrpc: "2.0", id: nextId++, method: "tools/call",
      params: { name: name, arguments: params.arguments || {} } };
    return fetch(config.mcpUrl, {
      method: "POST",
      headers: { "content-type": "application/json", "accept": "application/json",
        "mcp-protocol-version": "2025-11-25", "x-widget-mcp-user": config.token },
      body: JSON.stringify(body)
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (answer) {
        if (answer && answer.result) { note.textContent = ""; return answer.result; }
        var message = (answer && answer.error && answer.error.message) || ("HTTP " + response.status);
        note.textContent = message;
        return errorResult("refused", message);
      });
    }, function () {
      var message = "The widget could not reach " + config.mcpUrl + ".";
      note.textContent = message;
      return errorResult("unreachable", message);
    });
  }

  window.addEventListener("message", function (event) {
    if (event.source !== frame.contentWindow) return;
    var m = event.data;
    if (!m || m.jsonrpc !== "2.0" || typeof m.method !== "string") return;
    var has = Object.prototype.hasOwnProperty.call(m, "id");
    switch (m.method) {
      case "ui/initialize":
        reply(m.id, {
          protocolVersion: (m.params && m.params.protocolVersion) || "2026-01-26",
          hostInfo: { name: "widget-mcp for Open WebUI", version: "0.1.0" },
          hostCapabilities: { serverTools: {}, message: { text: {} }, updateModelContext: { text: {} } },
          hostContext: { theme: dark ? "dark" : "light", displayMode: "inline", availableDisplayModes: ["inline"],
            platform: "web", locale: navigator.language }
        });
        return;
      case "ui/notifications/initialized":
        if (!initialized) {
          initialized = true;
          post({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: config.toolInput } });
          post({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: config.toolResult });
        }
        return;
      case "ui/notifications/size-changed":
        if (m.params && typeof m.params.height === "number") height(m.params.height);
        return;
      case "tools/call":
        callTool(m.params).then(function (result) { reply(m.id, result); });
        return;
      case "ui/message":
        var text = ((m.params && m.params.content) || []).map(function (c) { return c && c.text || ""; }).join("\\n");
        if (text) parent.postMessage({ type: "input:prompt:submit", text: text }, "*");
        reply(m.id, {});
        return;
      case "ui/request-display-mode":
        reply(m.id, { mode: "inline" });
        return;
      default:
        if (has) reply(m.id, {});
    }
  });

  frame.srcdoc = config.html;
  height(120);
})();
</script>
</body></html>
"""
