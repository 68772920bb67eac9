"""The local issuer over HTTP, mounted under a path of the local server (`/issuer` in `make dev`)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from urllib.parse import parse_qsl, urlsplit

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from widget_mcp.auth.routes import MAX_REGISTRATION_BYTES
from widget_mcp.local.issuer import IssuerError, LocalIssuer
from widget_mcp.transport.cross_origin import browser_route
from widget_mcp.transport.guards import CorsPolicy, HostAllowlist

NO_STORE = {"cache-control": "no-store"}
# A registration or a token request is a few hundred bytes; the deployed registration takes as much.
MAX_BODY_BYTES = MAX_REGISTRATION_BYTES


class _BodyTooLarge(Exception):
    pass


def issuer_routes(issuer: LocalIssuer, cors: CorsPolicy, hosts: HostAllowlist) -> list[BaseRoute]:
    """`cors` and `hosts`: the server's CORS_ORIGINS and ALLOWED_HOSTS. A browser-based host on a listed origin
    reads the metadata, registers and redeems its code from its own page, so those routes answer it as `/mcp`
    does; `/authorize` is a navigation, which needs no CORS."""
    prefix = urlsplit(issuer.issuer).path.rstrip("/")

    def browser(path: str, endpoint: Callable[[Request], Awaitable[Response]], method: str) -> BaseRoute:
        return browser_route(path, endpoint, [method], cors, hosts)

    async def metadata(request: Request) -> Response:
        return JSONResponse(issuer.metadata())

    async def jwks(request: Request) -> Response:
        return JSONResponse(issuer.jwks())

    async def register(request: Request) -> Response:
        try:
            body = json.loads(await _capped_body(request))
        except _BodyTooLarge:
            return _too_large("invalid_client_metadata")
        except (ValueError, RecursionError):
            return _error(IssuerError("invalid_client_metadata", "the body must be a JSON object"))
        if not isinstance(body, dict):
            return _error(IssuerError("invalid_client_metadata", "the body must be a JSON object"))
        return _guard(lambda: JSONResponse(issuer.register(body), status_code=201, headers=NO_STORE))

    async def authorize(request: Request) -> Response:
        params = dict(request.query_params)
        return _guard(lambda: RedirectResponse(issuer.authorize(params), status_code=302, headers=NO_STORE))

    async def token(request: Request) -> Response:
        # application/x-www-form-urlencoded, parsed here: the only form this server ever reads.
        try:
            form = dict(parse_qsl((await _capped_body(request)).decode("utf-8", "replace")))
        except _BodyTooLarge:
            return _too_large("invalid_request")
        return _guard(lambda: JSONResponse(issuer.token(form), headers=NO_STORE))

    return [
        # RFC 8414 puts the issuer's path after the well-known segment; some clients also try it below.
        browser(f"/.well-known/oauth-authorization-server{prefix}", metadata, "GET"),
        browser(f"{prefix}/.well-known/oauth-authorization-server", metadata, "GET"),
        browser(f"{prefix}/.well-known/jwks.json", jwks, "GET"),
        browser(f"{prefix}/register", register, "POST"),
        Route(f"{prefix}/authorize", authorize, methods=["GET"]),
        browser(f"{prefix}/token", token, "POST"),
    ]


def _guard(answer: Callable[[], Response]) -> Response:
    try:
        return answer()
    except IssuerError as exc:
        return _error(exc)


def _error(exc: IssuerError) -> Response:
    return JSONResponse({"error": exc.error, "error_description": exc.description}, status_code=400, headers=NO_STORE)


async def _capped_body(request: Request) -> bytes:
    """The body, refused once it passes MAX_BODY_BYTES (by its declared length, or as it streams in) rather than
    buffered whole."""
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise _BodyTooLarge
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise _BodyTooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(error: str) -> Response:
    """413 with the endpoint's own error code (RFC 7591 3.2.2 for registration, RFC 6749 5.2 for tokens)."""
    description = f"the request body exceeds {MAX_BODY_BYTES} bytes"
    return JSONResponse({"error": error, "error_description": description}, status_code=413, headers=NO_STORE)
