"""make dev's event feed reads a tool call's answer when it came as an event stream (a tool that sent progress)."""

from __future__ import annotations

import json
from typing import Any

from starlette.types import Message, Receive, Scope, Send
from widget_mcp.local.mcp_tap import McpEventTap


class Feed:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def publish(self, event: dict[str, Any]) -> None:
        self.events.append(event)


def frame(message: dict[str, Any]) -> bytes:
    return b"event: message\ndata: " + json.dumps(message).encode() + b"\n\n"


async def streamed_answer(scope: Scope, receive: Receive, send: Send) -> None:
    await receive()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
    progress = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}}
    await send({"type": "http.response.body", "body": frame(progress), "more_body": True})
    result = {"content": [{"type": "text", "text": "Counted to 3."}], "isError": False}
    await send({"type": "http.response.body", "body": frame({"jsonrpc": "2.0", "id": 1, "result": result})})


async def test_a_streamed_answer_is_previewed_from_its_last_event() -> None:
    feed = Feed()
    tap = McpEventTap(streamed_answer, feed, {})  # type: ignore[arg-type]
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "count_up", "arguments": {}}}
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": json.dumps(call).encode(), "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    await tap({"type": "http", "method": "POST"}, receive, send)
    [end] = [e["data"] for e in feed.events if e["type"] == "tool_end"]
    assert end["result"] == "Counted to 3."
    assert end["is_error"] is False
    assert len(sent) == 3
