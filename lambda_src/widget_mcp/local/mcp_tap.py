"""Watches `/mcp` exchanges in local mode and publishes each `tools/call` as seed-003 events.

It reads the request body as the endpoint consumes it (so the endpoint's size cap still holds) and the JSON
answer as it is sent: `status` (the tool's invoking text), `tool_start`, then `tool_end` with a preview of
what the host got back, a closing `status` and `done`.

Events name only tools the server serves: a call naming any other tool is reported under `UNKNOWN_TOOL`, as the
name is whatever the caller wrote (any length, any markup).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from widget_mcp.local.events import EventFeed, preview
from widget_mcp.toolkit.tools import ToolSpec

# Not a tool name (tool names are snake_case), so it cannot be mistaken for one.
UNKNOWN_TOOL = "(unknown tool)"


def _json(body: bytes) -> Any:
    # It reads the body before the endpoint's depth check: JSON nested past the interpreter's recursion limit
    # is left for the endpoint to refuse (400), not raised here as a 500.
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return None


def _tool_call(body: bytes) -> tuple[str, Any] | None:
    message = _json(body)
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return None
    params = message.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    return (name, message.get("id")) if isinstance(name, str) else None


def _response(body: bytes) -> Any:
    """The JSON-RPC response in an answer: the body, or the last event of an event stream."""
    if body.startswith(b"event:") or body.startswith(b"data:"):
        data = [line[5:].strip() for line in body.splitlines() if line.startswith(b"data:")]
        return _json(data[-1]) if data else None
    return _json(body)


def _outcome(body: bytes) -> tuple[str, str | None]:
    """(preview text, error code or None) of a tools/call answer."""
    answer = _response(body)
    if not isinstance(answer, dict):
        return "", "bad_response"
    if isinstance(answer.get("error"), dict):
        return str(answer["error"].get("message", "")), "protocol_error"
    result = answer.get("result")
    if not isinstance(result, dict):
        return "", None
    texts = [c.get("text", "") for c in result.get("content") or [] if isinstance(c, dict)]
    text = " ".join(t for t in texts if isinstance(t, str) and t) or json.dumps(result.get("structuredContent"))
    code: str | None = None
    if result.get("isError"):
        meta = result.get("_meta")
        error = meta.get("error") if isinstance(meta, dict) else None
        code = str(error.get("code")) if isinstance(error, dict) and error.get("code") else "tool_error"
    return text, code


class McpEventTap:
    def __init__(self, app: ASGIApp, feed: EventFeed, tools: Mapping[str, ToolSpec]) -> None:
        self._app = app
        self._feed = feed
        self._tools = tools

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self._app(scope, receive, send)
            return
        request: list[bytes] = []
        response: list[bytes] = []
        call: dict[str, Any] = {}

        async def tapped_receive() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                request.append(message.get("body", b""))
                if not message.get("more_body", False):
                    found = _tool_call(b"".join(request))
                    if found:
                        name = found[0] if found[0] in self._tools else UNKNOWN_TOOL
                        call.update(name=name, tool_id=f"call_{uuid.uuid4().hex[:12]}", started=time.perf_counter())
                        self._start(call["name"], call["tool_id"])
            return message

        async def tapped_send(message: Message) -> None:
            if call and message["type"] == "http.response.body":
                response.append(message.get("body", b""))
                await send(message)
                if not message.get("more_body", False):
                    self._end(call, b"".join(response))
                return
            await send(message)

        await self._app(scope, tapped_receive, tapped_send)

    def _start(self, name: str, tool_id: str) -> None:
        spec = self._tools.get(name)
        description = spec.invoking if spec else f"Calling {name}…"
        self._feed.publish({"type": "status", "data": {"description": description, "agent_depth": 0}})
        self._feed.publish({"type": "tool_start", "data": {"tool_id": tool_id, "name": name, "agent_depth": 0}})

    def _end(self, call: Mapping[str, Any], body: bytes) -> None:
        name, tool_id = call["name"], call["tool_id"]
        text, error_code = _outcome(body)
        millis = round((time.perf_counter() - call["started"]) * 1000, 1)
        end: dict[str, Any] = {"tool_id": tool_id, "name": name, "result": preview(text)}
        end["is_error"] = error_code is not None
        if error_code:
            end["error_code"] = error_code
        end.update(duration_ms=millis, agent_depth=0)
        self._feed.publish({"type": "tool_end", "data": end})
        spec = self._tools.get(name)
        done = spec.invoked if spec and error_code is None else f"{name} failed"
        self._feed.publish({"type": "status", "data": {"description": done, "done": True, "agent_depth": 0}})
        self._feed.publish({"type": "done", "data": {"tool_id": tool_id}})
