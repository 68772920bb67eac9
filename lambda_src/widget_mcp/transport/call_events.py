"""Notifications a tool sends while it runs (progress, log messages), on its call's response stream.

A client that accepts `text/event-stream` gets the answer to a `tools/call` as Server-Sent Events when the tool
sent any: each notification, then the JSON-RPC response. Served by uvicorn (`make dev`), the events stream as
they are sent (`LiveStream`); on Lambda behind API Gateway's HTTP API, which buffers a response, they arrive
together with the result. A client that accepts only JSON gets the result alone.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Mapping
from typing import Any

import anyio

EVENT_STREAM_HEADERS: tuple[tuple[str, str], ...] = (
    ("content-type", "text/event-stream"),
    ("cache-control", "no-cache"),
)


def accepts_event_stream(headers: Mapping[str, str]) -> bool:
    return "text/event-stream" in headers.get("accept", "")


def sse_frame(message_json: bytes) -> bytes:
    """One SSE event carrying one JSON-RPC message (already encoded)."""
    return b"event: message\ndata: " + message_json + b"\n\n"


class LiveStream:
    """The frames of a response being streamed as the tool runs. Made on the event loop's thread; `push` may be
    called from it or from a worker thread running a sync tool."""

    def __init__(self) -> None:
        send, receive = anyio.create_memory_object_stream[bytes](math.inf)
        self._send = send
        self.receive = receive
        self._loop_thread = threading.get_ident()
        self.started = False

    def push(self, frame: bytes) -> None:
        self.started = True
        if threading.get_ident() == self._loop_thread:
            self._send.send_nowait(frame)
        else:  # a sync tool in a worker thread; imported here, as only a local server runs tools in threads
            import anyio.from_thread

            anyio.from_thread.run_sync(self._send.send_nowait, frame)

    def close(self) -> None:
        self._send.close()


class CallEvents:
    """Collects (or, with a `LiveStream`, streams) the notifications of one call."""

    def __init__(self, live: LiveStream | None = None) -> None:
        self.frames: list[bytes] = []
        self._live = live

    def notify(self, method: str, params: dict[str, Any]) -> None:
        message = json.dumps({"jsonrpc": "2.0", "method": method, "params": params}, separators=(",", ":"))
        frame = sse_frame(message.encode())
        if self._live is not None:
            self._live.push(frame)
        else:
            self.frames.append(frame)
