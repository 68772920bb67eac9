"""`/account/data` for a signed-in user outside any MCP host: GET exports (`?cursor=` for the next page), DELETE
erases, what `export_my_data` and `erase_my_data` do, for the subject of the bearer token (verified by the same gate
as `/mcp`). Served only with sign-in on: without it nothing proves who a plain HTTP caller is."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute

from widget_mcp.apps.my_data.names import ERASE_TOOL, EXPORT_TOOL
from widget_mcp.auth.gate import Refused, SignInGate
from widget_mcp.transport.cross_origin import browser_route
from widget_mcp.transport.guards import CorsPolicy, HostAllowlist

if TYPE_CHECKING:
    from widget_mcp.toolkit.runtime import ToolRuntime

ACCOUNT_DATA_PATH = "/account/data"
TOOLS = {"GET": EXPORT_TOOL, "DELETE": ERASE_TOOL}
# A tool's error code → the HTTP status that says the same.
STATUS = {"identity_required": 401, "rate_limited": 429, "service_unavailable": 503}
NO_STORE = {"cache-control": "no-store"}


def account_routes(gate: SignInGate, runtime: ToolRuntime, hosts: HostAllowlist, cors: CorsPolicy) -> list[BaseRoute]:
    if not set(TOOLS.values()) <= set(runtime.tools):
        return []  # the app that serves them is not in this deployment

    async def account_data(request: Request) -> Response:
        tool = TOOLS[request.method if request.method != "HEAD" else "GET"]
        headers = {k.lower(): v for k, v in request.headers.items()}
        message = {"method": "tools/call", "params": {"name": tool}}
        verdict = await anyio.to_thread.run_sync(gate.check, headers, message)  # may fetch the issuer's keys
        if isinstance(verdict, Refused):
            body = {"error": verdict.code, "error_description": verdict.description}
            return JSONResponse(
                body, status_code=verdict.status, headers={"www-authenticate": verdict.www_authenticate, **NO_STORE}
            )
        if verdict.subject is None:  # no token was asked for: nothing says whose data this is
            body = {"error": "identity_required", "error_description": "Sign in to reach your data."}
            return JSONResponse(body, status_code=401, headers=NO_STORE)
        # GET pages as the tool does: `?cursor=` is the previous page's nextCursor
        cursor = request.query_params.get("cursor") if tool == EXPORT_TOOL else None
        arguments = {"cursor": cursor} if cursor is not None else {}
        result: dict[str, Any] = await runtime.call(tool, arguments, None, subject=verdict.subject)
        if result.get("isError"):
            error = result.get("_meta", {}).get("error", {})
            code = str(error.get("code", "internal_error"))
            body = {"error": code, "error_description": error.get("message", "")}
            # A caller past its rate limit (admitted before any read or delete) is told when to come back.
            retry = {"retry-after": str(error["retryAfter"])} if "retryAfter" in error else {}
            status = STATUS.get(code, 400 if code != "internal_error" else 500)
            return JSONResponse(body, status_code=status, headers={**NO_STORE, **retry})
        return Response(json.dumps(result["structuredContent"]), media_type="application/json", headers=NO_STORE)

    return [browser_route(ACCOUNT_DATA_PATH, account_data, ["GET", "DELETE"], cors, hosts)]
