"""The routes beside `/mcp` that a browser may reach (the OAuth metadata, client registration, the local issuer,
`make dev`'s event feed), with `/mcp`'s Host allowlist, CORS policy and answers: a `Host` not allowed gets 421
(what stops a DNS-rebinding page, whose requests carry its own name); a listed origin's replies (errors
included) are readable by its page and its preflights are answered; any other origin but the server's own gets
403; a request without `Origin` is served as it always was. `HostChecked` puts the Host allowlist alone in front of
what is read by navigation or by any origin (`make dev`'s playground and widget files)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from widget_mcp.transport.guards import CorsPolicy, HostAllowlist

logger = logging.getLogger(__name__)

Endpoint = Callable[[Request], Awaitable[Response]]
# Every method reaches the route, so that a wrong one gets its 405 with the CORS headers too.
ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def browser_route(
    path: str, endpoint: Endpoint, methods: Sequence[str], cors: CorsPolicy, hosts: HostAllowlist
) -> Route:
    """A route serving `methods` with `endpoint` (GET implies HEAD), plus OPTIONS for CORS preflights."""
    served = {*methods, "HEAD"} if "GET" in methods else set(methods)
    not_allowed = ("allow", ", ".join(methods))
    preflight = CorsPolicy.preflight_headers(", ".join([*methods, "OPTIONS"]))

    async def answer(request: Request) -> Response:
        origin = request.headers.get("origin")
        verdict = cors.screen(request.method, origin, "access-control-request-method" in request.headers, hosts)
        reply: Response
        if not hosts.allows(request.headers.get("host")):  # first, as on `/mcp`
            reply = _host_refused()
        elif verdict == "refuse":
            return _error(403, "invalid_request", "Origin not allowed")
        elif verdict == "not_preflight":
            reply = _error(405, "invalid_request", "Method not allowed", not_allowed)
        elif verdict == "preflight":
            reply = Response(status_code=204, headers=dict(preflight))
        elif request.method not in served:
            reply = _error(405, "invalid_request", "Method not allowed", not_allowed)
        else:
            try:
                reply = await endpoint(request)
            except Exception:
                # Answered here rather than by the app's handler, so the page that asked can still read the 500.
                logger.exception("a route beside /mcp failed", extra={"path": path})
                reply = JSONResponse({"error": "internal_error"}, status_code=500)
        # Every answer depends on Origin (CORS headers, or 403), and the metadata is cacheable: say so to caches.
        reply.headers.add_vary_header("Origin")
        if origin is not None and cors.lists(origin):
            for name, value in CorsPolicy.reply_headers(origin):
                if name != "vary":
                    reply.headers[name] = value
        return reply

    return Route(path, answer, methods=ALL_METHODS)


class HostChecked:
    """`app` behind `/mcp`'s Host allowlist: a `Host` not allowed gets 421 and never reaches it, so a DNS-rebinding
    page cannot read it; no CORS screening (the widget files are public to every origin, sandboxed frames included)."""

    def __init__(self, app: ASGIApp, hosts: HostAllowlist) -> None:
        self._app, self._hosts = app, hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._hosts.allows(Request(scope).headers.get("host")):
            await _host_refused()(scope, receive, send)
            return
        await self._app(scope, receive, send)


def _host_refused() -> Response:
    return _error(421, "invalid_host", "Invalid Host header")


def _error(status: int, error: str, description: str, *extra: tuple[str, str]) -> Response:
    return JSONResponse({"error": error, "error_description": description}, status_code=status, headers=dict(extra))
