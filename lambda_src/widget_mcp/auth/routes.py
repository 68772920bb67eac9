"""Sign-in's HTTP routes beside `/mcp`: the protected-resource metadata, and, in front of Cognito, the
authorization-server metadata and registration (`widget_mcp.auth.facade`), and the authorize and token routes
for clients identified by a metadata document (`widget_mcp.auth.client_flow`)."""

from __future__ import annotations

import json

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute

from widget_mcp.auth.client_documents import ClientRefused
from widget_mcp.auth.client_flow import ClientFlow
from widget_mcp.auth.facade import (
    AUTHORIZE_PATH,
    REGISTRATION_PATH,
    TOKEN_PATH,
    AuthorizationServerFacade,
    RegistrationRefused,
)
from widget_mcp.auth.facade import METADATA_PATH as AS_METADATA_PATH
from widget_mcp.auth.gate import METADATA_PATH as PR_METADATA_PATH
from widget_mcp.auth.gate import SignInGate
from widget_mcp.transport.cross_origin import browser_route
from widget_mcp.transport.guards import CorsPolicy, HostAllowlist

# Metadata changes only with a deployment; clients may keep it for an hour.
CACHE = {"cache-control": "public, max-age=3600"}
MAX_REGISTRATION_BYTES = 16 * 1024
MAX_TOKEN_REQUEST_BYTES = 16 * 1024
MAX_QUERY_CHARS = 8 * 1024
NO_STORE = {"cache-control": "no-store"}


def sign_in_routes(
    gate: SignInGate,
    hosts: HostAllowlist,
    facade: AuthorizationServerFacade | None = None,
    cors: CorsPolicy | None = None,
    flow: ClientFlow | None = None,
) -> list[BaseRoute]:
    """`cors`: the browser origins (CORS_ORIGINS) that may read these routes as they may call `/mcp`, since a
    browser-based host discovers and registers from its own origin before its first call."""
    policy = cors or CorsPolicy()

    async def resource_metadata(request: Request) -> Response:
        # The document names the request's host: `browser_route` lets only an allowed one through.
        headers = {k.lower(): v for k, v in request.headers.items()}
        return JSONResponse(gate.metadata(headers), headers=CACHE)

    routes: list[BaseRoute] = [
        # RFC 9728 3.1: the resource's path follows the well-known segment; the bare form serves older clients.
        browser_route(f"{PR_METADATA_PATH}/mcp", resource_metadata, ["GET"], policy, hosts),
        browser_route(PR_METADATA_PATH, resource_metadata, ["GET"], policy, hosts),
    ]
    if facade is None:
        return routes

    async def server_metadata(request: Request) -> Response:
        return JSONResponse(facade.metadata(), headers=CACHE)

    async def register(request: Request) -> Response:
        body = await request.body()
        if len(body) > MAX_REGISTRATION_BYTES:
            return _refused(RegistrationRefused("invalid_client_metadata", "the registration request is too large"))
        try:
            payload = json.loads(body)
        except (ValueError, RecursionError):
            payload = None
        if not isinstance(payload, dict):
            return _refused(RegistrationRefused("invalid_client_metadata", "the body must be a JSON object"))
        try:
            return JSONResponse(facade.register(payload), status_code=201, headers={"cache-control": "no-store"})
        except RegistrationRefused as exc:
            return _refused(exc)

    routes += [
        browser_route(AS_METADATA_PATH, server_metadata, ["GET"], policy, hosts),
        browser_route(REGISTRATION_PATH, register, ["POST"], policy, hosts),
    ]
    return routes if flow is None else [*routes, *_client_flow_routes(flow, policy, hosts)]


def _client_flow_routes(flow: ClientFlow, policy: CorsPolicy, hosts: HostAllowlist) -> list[BaseRoute]:
    async def authorize(request: Request) -> Response:
        # An unverified redirect_uri is never followed: every refusal is answered here, not sent to the client.
        if len(request.url.query) > MAX_QUERY_CHARS:
            return _client_refused(ClientRefused("invalid_request", "the authorization request is too long"))
        items = request.query_params.multi_items()
        if len({k for k, _ in items}) != len(items):
            return _client_refused(ClientRefused("invalid_request", "a parameter is given more than once"))
        try:
            location = await flow.authorize_location(dict(items))
        except ClientRefused as exc:
            return _client_refused(exc)
        return RedirectResponse(location, status_code=302, headers=NO_STORE)

    async def token(request: Request) -> Response:
        body = await request.body()
        if len(body) > MAX_TOKEN_REQUEST_BYTES:
            return _client_refused(ClientRefused("invalid_request", "the token request is too large"))
        form = await request.form()
        pairs = [(k, v) for k, v in form.multi_items() if isinstance(v, str)]
        if len(pairs) != len(form.multi_items()) or len({k for k, _ in pairs}) != len(pairs):
            return _client_refused(ClientRefused("invalid_request", "each form field once, as text"))
        try:
            answer = await flow.token(dict(pairs))
        except ClientRefused as exc:
            return _client_refused(exc)
        return Response(answer.body, answer.status, headers=NO_STORE, media_type=answer.content_type)

    return [
        browser_route(AUTHORIZE_PATH, authorize, ["GET"], policy, hosts),
        browser_route(TOKEN_PATH, token, ["POST"], policy, hosts),
    ]


def _client_refused(exc: ClientRefused) -> Response:
    status = 401 if exc.error == "invalid_client" else 400
    return JSONResponse({"error": exc.error, "error_description": str(exc)}, status_code=status, headers=NO_STORE)


def _refused(exc: RegistrationRefused) -> Response:
    return JSONResponse({"error": exc.error, "error_description": str(exc)}, status_code=400)
