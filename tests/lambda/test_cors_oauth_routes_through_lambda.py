"""CORS on the sign-in routes through `widget_mcp.handler.handler`, as API Gateway delivers a browser host's
requests: they reach the web app under Mangum (only `/mcp` skips it), which answers a listed origin's preflight
and echoes it on the metadata and registration replies, as `/mcp` does on the direct path."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from apigw_events import Context, Handler, v1, v2
from cognito_sign_in import API, cognito_sign_in
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.wiring import build_core

BROWSER_HOST = "https://host.example.com"  # the CORS_ORIGINS tests/lambda/conftest.py sets
CALLBACK = "https://host.example.com/oauth/callback"


@pytest.fixture
def signed_in(handler: Handler, monkeypatch: pytest.MonkeyPatch) -> Iterator[Handler]:
    """The real handler serving a `-c signIn=true` deployment's settings (its web app is rebuilt for them)."""
    import widget_mcp.handler as module

    settings = cognito_sign_in(
        CALLBACK, cors_origins=(BROWSER_HOST,), table_name="lambda-test-state", oauth_scope_prefix=f"{API}/mcp/"
    )
    monkeypatch.setattr(module, "core", build_core(settings, store=InMemoryDocumentStore()))
    module._asgi_handler.cache_clear()
    yield handler
    module._asgi_handler.cache_clear()  # the next test's app is built on the module's own core again


def _preflight(method: str) -> dict[str, str]:
    return {
        "origin": BROWSER_HOST,
        "access-control-request-method": method,
        "access-control-request-headers": "content-type,mcp-protocol-version",
    }


def _headers(reply: dict[str, Any]) -> dict[str, str]:
    return {name.lower(): value for name, value in reply["headers"].items()}


@pytest.mark.parametrize(
    ("path", "method"),
    [
        ("/oauth/register", "POST"),
        ("/.well-known/oauth-authorization-server", "GET"),
        ("/.well-known/oauth-protected-resource/mcp", "GET"),
        ("/mcp", "POST"),
    ],
)
def test_a_listed_origins_preflight_is_answered_on_each_route_a_browser_host_uses(
    signed_in: Handler, path: str, method: str
) -> None:
    reply = signed_in(v2(method="OPTIONS", path=path, headers=_preflight(method)), Context())
    headers = _headers(reply)
    assert reply["statusCode"] == 204
    assert headers["access-control-allow-origin"] == BROWSER_HOST
    assert headers["vary"] == "Origin"
    assert method in headers["access-control-allow-methods"]
    assert "mcp-protocol-version" in headers["access-control-allow-headers"]


def test_a_browser_host_discovers_and_registers_from_its_own_origin(signed_in: Handler) -> None:
    origin = {"origin": BROWSER_HOST}
    resource = signed_in(v2(method="GET", path="/.well-known/oauth-protected-resource/mcp", headers=origin), Context())
    server = signed_in(v2(method="GET", path="/.well-known/oauth-authorization-server", headers=origin), Context())
    registration = json.loads(server["body"])["registration_endpoint"]
    assert registration == f"{API}/oauth/register"
    registered = signed_in(v2({"redirect_uris": [CALLBACK]}, path="/oauth/register", headers=origin), Context())
    elsewhere = {"redirect_uris": ["https://x.example/cb"]}
    refused = signed_in(v2(elsewhere, path="/oauth/register", headers=origin), Context())
    assert [r["statusCode"] for r in (resource, server, registered, refused)] == [200, 200, 201, 400]
    for reply in (resource, server, registered, refused):
        assert _headers(reply)["access-control-allow-origin"] == BROWSER_HOST
        assert _headers(reply)["vary"] == "Origin"
    assert json.loads(registered["body"])["client_id"] == "client-1"


def test_an_unlisted_origin_is_refused_on_the_sign_in_routes_as_on_mcp(signed_in: Handler) -> None:
    preflight = {"origin": "https://evil.example.com", "access-control-request-method": "POST"}
    for path in ("/oauth/register", "/mcp"):
        reply = signed_in(v2(method="OPTIONS", path=path, headers=preflight), Context())
        assert reply["statusCode"] == 403
        assert "access-control-allow-origin" not in _headers(reply)


def test_a_rest_api_event_gets_the_same_preflight_answer(signed_in: Handler) -> None:
    reply = signed_in(v1(method="OPTIONS", path="/oauth/register", headers=_preflight("POST")), Context())
    assert reply["statusCode"] == 204
    assert _headers(reply)["access-control-allow-origin"] == BROWSER_HOST
