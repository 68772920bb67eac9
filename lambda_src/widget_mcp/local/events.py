"""The local event feed: seed-003 typed events (`status`, `tool_start`, `tool_end`, `done`) as Server-Sent Events.

`GET /events` streams every event published after the client connected, one `data: {json}` line each. The stream
ends when the app stops (or restarts, under `make dev`); an `EventSource` then reconnects after half a second, and
the playground takes a reconnection as its cue to look for new templates.

Previews of tool results are at most 200 characters and HTML-escaped, so any consumer may show them as HTML.
"""

from __future__ import annotations

import asyncio
import html
import json
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

PREVIEW_LIMIT = 200
KEEPALIVE_SECONDS = 15.0
QUEUE_SIZE = 256
RECONNECT_MILLIS = 500

Event = dict[str, Any]


def preview(text: str, limit: int = PREVIEW_LIMIT) -> str:
    """`text` HTML-escaped and cut so the escaped form is at most `limit` characters (never mid-entity)."""
    escaped = html.escape(" ".join(text.split()), quote=True)
    if len(escaped) <= limit:
        return escaped
    out: list[str] = []
    size = 0
    for char in " ".join(text.split()):
        piece = html.escape(char, quote=True)
        if size + len(piece) > limit - 1:
            break
        out.append(piece)
        size += len(piece)
    return "".join(out) + "…"


class EventFeed:
    """Fan-out of events to every connected subscriber. A slow subscriber loses its oldest events, never blocks."""

    def __init__(self) -> None:
        self._subscribers: set[asyncio.Queue[Event | None]] = set()

    def publish(self, event: Event) -> None:
        for queue in list(self._subscribers):
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(event)

    def subscribe(self) -> asyncio.Queue[Event | None]:
        queue: asyncio.Queue[Event | None] = asyncio.Queue(QUEUE_SIZE)
        self._subscribers.add(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[Event | None]) -> None:
        self._subscribers.discard(queue)

    def close(self) -> None:
        """End every open stream (on shutdown)."""
        for queue in list(self._subscribers):
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(None)

    @property
    def subscriber_count(self) -> int:
        return len(self._subscribers)

    async def stream(self, request: Request) -> Response:
        headers = {"cache-control": "no-cache", "x-accel-buffering": "no"}
        if request.method == "HEAD":  # the headers alone: a stream would run until the client hung up
            return Response(media_type="text/event-stream", headers=headers)
        queue = self.subscribe()

        async def lines() -> AsyncIterator[bytes]:
            try:
                # A browser reconnects this soon after the stream ends: under `make dev`, when the app restarts.
                yield f": connected\n\nretry: {RECONNECT_MILLIS}\n\n".encode()
                while True:
                    try:
                        event = await asyncio.wait_for(queue.get(), timeout=KEEPALIVE_SECONDS)
                    except TimeoutError:
                        yield b": keepalive\n\n"
                        continue
                    if event is None:
                        return
                    yield f"data: {json.dumps(event, separators=(',', ':'))}\n\n".encode()
            finally:
                self.unsubscribe(queue)

        return StreamingResponse(lines(), media_type="text/event-stream", headers=headers)
