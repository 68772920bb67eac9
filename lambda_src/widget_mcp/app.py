"""The FastAPI app: `/mcp` (one JSON-RPC exchange per POST), `/healthz`, and in local mode `/widgets` (behind the
same Host allowlist as `/mcp`).

Local mode (`widget_mcp.local.app`) adds `/playground` and `/events` through `extra_routes` and taps `/mcp`
with `mcp_tap`; the Lambda app has neither.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from starlette.requests import Request
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

import widget_mcp
from widget_mcp.transport.call_events import LiveStream, accepts_event_stream, sse_frame
from widget_mcp.transport.cross_origin import HostChecked
from widget_mcp.transport.endpoint import McpEndpoint
from widget_mcp.transport.guards import HostAllowlist
from widget_mcp.transport.header_lines import header_lines
from widget_mcp.transport.replies import HttpReply

MCP_METHODS = ["POST", "GET", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS"]


class _BodyTooLarge(Exception):
    pass


class McpAsgi:
    """ASGI adapter for the endpoint. Reads the body with a cap, so a huge upload is refused, not buffered."""

    def __init__(self, endpoint: McpEndpoint, max_body_bytes: int) -> None:
        self._endpoint = endpoint
        self._max = max_body_bytes

    async def _read_body(self, scope: Scope, receive: Receive) -> bytes:
        for name, value in scope["headers"]:
            if name == b"content-length" and value.isdigit() and int(value) > self._max:
                raise _BodyTooLarge
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self._max:
                raise _BodyTooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # The raw lines: the endpoint refuses a routing header sent twice (header_lines.py).
        headers = header_lines((k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"])
        method = scope["method"]
        try:
            body = await self._read_body(scope, receive) if method == "POST" else b""
        except _BodyTooLarge:
            await _send(self._endpoint.oversized(headers), send)
            return
        client = scope.get("client")
        peer = client[0] if client else None
        # Only a tool call sends notifications: other requests skip the streaming machinery.
        if method != "POST" or b"tools/call" not in body or not accepts_event_stream(headers):
            reply = await self._endpoint.handle(method, headers, body, headers.get("x-request-id"), peer)
            await _send(reply, send)
            return
        await self._stream(headers, body, send, peer)

    async def _stream(self, headers: dict[str, str], body: bytes, send: Send, peer: str | None) -> None:
        """Serve a request whose client accepts an event stream: a tool's notifications go out as it sends them,
        and the response follows as the last event; without notifications, the plain reply."""
        live = LiveStream()
        replies: list[HttpReply] = []

        async def serve() -> None:
            try:
                reply = await self._endpoint.handle("POST", headers, body, headers.get("x-request-id"), peer, live=live)
                replies.append(reply)
            finally:
                live.close()

        started = False
        async with anyio.create_task_group() as group:
            group.start_soon(serve)
            async with live.receive:
                async for frame in live.receive:
                    if not started:
                        started = True
                        stream_headers = self._endpoint.event_stream_headers(headers)
                        raw = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in stream_headers]
                        await send({"type": "http.response.start", "status": 200, "headers": raw})
                    await send({"type": "http.response.body", "body": frame, "more_body": True})
        [reply] = replies
        if not started:
            await _send(reply, send)
        else:
            # The response as the last event; a reply that is a stream already (a call's input requests) as it is.
            streamed = ("content-type", "text/event-stream") in reply.headers
            last = reply.body if streamed or not reply.body else sse_frame(reply.body)
            await send({"type": "http.response.body", "body": last})


async def _send(reply: HttpReply, send: Send) -> None:
    headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in reply.headers]
    if reply.status != 204:  # a 204 (a preflight's answer) has no body and must not announce one
        headers.append((b"content-length", str(len(reply.body)).encode()))
    await send({"type": "http.response.start", "status": reply.status, "headers": headers})
    await send({"type": "http.response.body", "body": reply.body})


def create_app(
    endpoint: McpEndpoint,
    *,
    max_body_bytes: int,
    tool_count: int,
    widget_dir: Path | None = None,
    widget_hosts: HostAllowlist | None = None,
    mcp_tap: Callable[[ASGIApp], ASGIApp] | None = None,
    extra_routes: Sequence[BaseRoute] = (),
) -> FastAPI:
    app = FastAPI(title="widget-mcp", version=widget_mcp.__version__, docs_url=None, redoc_url=None, openapi_url=None)
    mcp: ASGIApp = McpAsgi(endpoint, max_body_bytes)
    app.router.routes.append(Route("/mcp", mcp_tap(mcp) if mcp_tap else mcp, methods=MCP_METHODS))
    app.router.routes.extend(extra_routes)

    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:
        return {"status": "ok", "version": widget_mcp.__version__, "tools": tool_count}

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        # Outside /mcp (which answers JSON-RPC errors itself) an unexpected failure is a bare JSON 500.
        return JSONResponse({"error": "internal_error"}, status_code=500)

    if widget_dir is not None:
        if widget_hosts is None:
            raise TypeError("serving widget files needs widget_hosts, the Host allowlist /mcp has")
        app.mount("/widgets", HostChecked(_widget_files(widget_dir), widget_hosts), name="widgets")

    return app


def _widget_files(widget_dir: Path) -> ASGIApp:
    """The built bundles, or until they are built a 404 that says so."""
    if widget_dir.is_dir():
        from widget_mcp.local.widget_files import WidgetFiles

        return WidgetFiles(directory=widget_dir)
    hint = "the widget bundles are not built: build widget_bundles/ to serve them here"
    return JSONResponse({"error": "not_found", "hint": hint}, status_code=404)
