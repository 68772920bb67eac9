"""CORS on the sign-in routes beside `/mcp`: a browser-based host on a listed origin (CORS_ORIGINS) reads the
OAuth metadata and registers from its own page, with `/mcp`'s policy; any other origin gets what `/mcp` gives
it, and requests without Origin are served as before. Over the ASGI app, as a `-c signIn=true` deployment
configures it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from cognito_sign_in import API, HOST, cognito_sign_in, web_app_client
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from widget_mcp.transport.cross_origin import browser_route
from widget_mcp.transport.guards import CorsPolicy, HostAllowlist

BROWSER_HOST = "https://inspector.example.com"
UNLISTED = "https://evil.example.com"
CALLBACK = "https://inspector.example.com/oauth/callback"
METADATA_PATHS = [
    "/.well-known/oauth-protected-resource/mcp",
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-authorization-server",
]
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with web_app_client(cognito_sign_in(CALLBACK, cors_origins=(BROWSER_HOST,))) as client:
        yield client


def _readable_by(answer: httpx.Response, origin: str) -> bool:
    return answer.headers.get("access-control-allow-origin") == origin and answer.headers.get("vary") == "Origin"


@pytest.mark.parametrize("path", METADATA_PATHS)
async def test_a_listed_origin_reads_the_oauth_metadata(http: httpx.AsyncClient, path: str) -> None:
    answer = await http.get(path, headers={"origin": BROWSER_HOST})
    assert answer.status_code == 200
    assert _readable_by(answer, BROWSER_HOST)
    assert answer.json()["scopes_supported"]


async def test_a_listed_origin_gets_its_registration_preflight_answered(http: httpx.AsyncClient) -> None:
    headers = {
        "origin": BROWSER_HOST,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,mcp-protocol-version",
    }
    answer = await http.options("/oauth/register", headers=headers)
    assert answer.status_code == 204
    assert answer.content == b""
    assert _readable_by(answer, BROWSER_HOST)
    assert answer.headers["access-control-allow-methods"] == "POST, OPTIONS"
    allowed = {h.strip() for h in answer.headers["access-control-allow-headers"].split(",")}
    assert {"content-type", "mcp-protocol-version"} <= allowed
    assert int(answer.headers["access-control-max-age"]) > 0


async def test_a_metadata_preflight_with_the_mcp_version_header_is_answered_for_get(http: httpx.AsyncClient) -> None:
    # The TypeScript SDK sends MCP-Protocol-Version on discovery, which makes the browser preflight the GET.
    headers = {
        "origin": BROWSER_HOST,
        "access-control-request-method": "GET",
        "access-control-request-headers": "mcp-protocol-version",
    }
    answer = await http.options("/.well-known/oauth-protected-resource/mcp", headers=headers)
    assert answer.status_code == 204
    assert _readable_by(answer, BROWSER_HOST)
    assert answer.headers["access-control-allow-methods"] == "GET, OPTIONS"


async def test_a_listed_origin_registers_and_reads_the_client(http: httpx.AsyncClient) -> None:
    answer = await http.post("/oauth/register", json={"redirect_uris": [CALLBACK]}, headers={"origin": BROWSER_HOST})
    assert answer.status_code == 201
    assert answer.json()["client_id"] == "client-1"
    assert _readable_by(answer, BROWSER_HOST)


async def test_a_listed_origin_reads_the_errors_too(http: httpx.AsyncClient) -> None:
    origin = {"origin": BROWSER_HOST}
    refused = await http.post("/oauth/register", json={"redirect_uris": ["https://x.example/cb"]}, headers=origin)
    wrong_host = await http.get("/.well-known/oauth-protected-resource", headers={**origin, "host": "other.example"})
    wrong_method = await http.put("/oauth/register", json={}, headers=origin)
    not_a_preflight = await http.options("/oauth/register", headers=origin)
    assert [a.status_code for a in (refused, wrong_host, wrong_method, not_a_preflight)] == [400, 421, 405, 405]
    for answer in (refused, wrong_host, wrong_method, not_a_preflight):
        assert _readable_by(answer, BROWSER_HOST), answer
    assert refused.json()["error"] == "invalid_redirect_uri"
    assert wrong_method.headers["allow"] == "POST"


@pytest.mark.parametrize(
    ("path", "method"),
    [("/mcp", "POST"), ("/oauth/register", "POST"), ("/.well-known/oauth-authorization-server", "GET")],
)
async def test_an_unlisted_origin_gets_403_without_cors_headers_as_on_mcp(
    http: httpx.AsyncClient, path: str, method: str
) -> None:
    origin = {"origin": UNLISTED}
    preflight = await http.options(path, headers={**origin, "access-control-request-method": method})
    request = await http.request(method, path, json=PING if method == "POST" else None, headers=origin)
    for answer in (preflight, request):
        assert answer.status_code == 403
        assert "access-control-allow-origin" not in answer.headers
        assert "vary" not in answer.headers


async def test_the_servers_own_origin_reads_without_cors_headers_and_cannot_preflight(
    http: httpx.AsyncClient,
) -> None:
    same = {"origin": API}
    metadata = await http.get("/.well-known/oauth-authorization-server", headers=same)
    registered = await http.post("/oauth/register", json={"redirect_uris": [CALLBACK]}, headers=same)
    preflight = await http.options("/oauth/register", headers={**same, "access-control-request-method": "POST"})
    assert (metadata.status_code, registered.status_code, preflight.status_code) == (200, 201, 403)
    assert all("access-control-allow-origin" not in a.headers for a in (metadata, registered, preflight))


async def test_requests_without_origin_are_served_as_before_but_say_the_answer_varies_by_origin(
    http: httpx.AsyncClient,
) -> None:
    metadata = await http.get("/.well-known/oauth-authorization-server")
    registered = await http.post("/oauth/register", json={"redirect_uris": [CALLBACK]})
    options = await http.options("/oauth/register", headers={"access-control-request-method": "POST"})
    assert (metadata.status_code, registered.status_code, options.status_code) == (200, 201, 405)
    assert metadata.headers["cache-control"] == "public, max-age=3600"
    for answer in (metadata, registered, options):
        assert not any(name.startswith("access-control-") for name in answer.headers)
        # The metadata is cacheable for an hour: a shared cache must not hand this copy, without CORS headers, to
        # a listed origin's page (nor a listed origin's copy to anyone else).
        assert answer.headers["vary"] == "Origin"


async def test_a_route_that_fails_still_answers_a_readable_json_500(caplog: pytest.LogCaptureFixture) -> None:
    async def broken(request: Request) -> Response:
        raise RuntimeError("the registration store is down")

    route = browser_route("/oauth/register", broken, ["POST"], CorsPolicy([BROWSER_HOST]), HostAllowlist([HOST]))
    transport = httpx.ASGITransport(app=Starlette(routes=[route]))
    async with httpx.AsyncClient(transport=transport, base_url=API) as client:
        answer = await client.post("/oauth/register", json={}, headers={"origin": BROWSER_HOST})
    assert answer.status_code == 500
    assert answer.json() == {"error": "internal_error"}
    assert _readable_by(answer, BROWSER_HOST)
    assert "the registration store is down" in caplog.text
