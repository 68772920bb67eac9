"""What `make dev` answers while the app cannot load (a mistake in a saved file): every request gets 503 and the
error, until the next change restarts the app."""

from __future__ import annotations

import traceback

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send


def failure_summary(exc: BaseException) -> str:
    """The error and where it is: for a SyntaxError its own file and line, else the innermost frame's."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return f"{type(exc).__name__}: {exc.msg} ({exc.filename}, line {exc.lineno})"
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" ({frames[-1].filename}, line {frames[-1].lineno})" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"


def failure_app(summary: str) -> ASGIApp:
    """A JSON-RPC error for /mcp (MCP clients show its message), a JSON error elsewhere (/healthz)."""
    message = f"The app failed to load: {summary}. Fix it and save; make dev restarts it."

    async def explain(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        body: dict[str, object]
        if scope["path"] == "/mcp":
            body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32603, "message": message}}
        else:
            body = {"status": "error", "error": message}
        await JSONResponse(body, status_code=503, headers={"Retry-After": "1"})(scope, receive, send)

    return explain
