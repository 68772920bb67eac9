"""CORS for browser-based MCP hosts: which origins are listed, and what `/mcp` answers each kind of origin."""

from __future__ import annotations

import json

import pytest
from widget_mcp.settings import Settings
from widget_mcp.transport.endpoint import McpEndpoint
from widget_mcp.transport.guards import CorsPolicy, HostAllowlist, origin_key
from widget_mcp.transport.replies import HttpReply
from widget_mcp.wiring import build_core

HOST = "mcp.example.com"
LISTED = "https://host.example.com"
PING = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
JSON = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
PREFLIGHT = {"access-control-request-method": "POST", "access-control-request-headers": "content-type"}


@pytest.mark.parametrize(
    ("origin", "listed"),
    [
        ("https://host.example.com", True),
        ("HTTPS://Host.Example.COM", True),
        ("https://host.example.com:443", True),
        ("http://host.example.com", False),
        ("https://host.example.com:8443", False),
        ("https://evil.host.example.com", False),
        ("https://host.example.com.evil.net", False),
        ("http://localhost:6274", True),
        ("http://localhost", True),
        ("http://[::1]:5173", True),
        ("http://127.0.0.1:5173", False),
        ("http://localhost:*", False),
        ("null", False),
        ("", False),
        (None, False),
    ],
)
def test_listed_origins_match_by_scheme_host_and_port_and_host_colon_star_allows_any_port(
    origin: str | None, listed: bool
) -> None:
    policy = CorsPolicy(["https://host.example.com", "http://localhost:*", "http://[::1]:*"])
    assert policy.lists(origin) is listed


@pytest.mark.parametrize(
    "text", ["null", "*", "https://*.example.com", "https://a.example.com/path", "ftp://a.example.com", "https://u@a.b"]
)
def test_anything_but_an_http_origin_or_a_port_wildcard_is_not_an_origin(text: str) -> None:
    assert origin_key(text) is None
    with pytest.raises(ValueError, match="not an origin"):
        CorsPolicy([text])


def test_origins_compare_with_the_default_port_filled_in() -> None:
    assert (
        origin_key("https://A.example.com")
        == origin_key("https://a.example.com:443")
        == ("https", "a.example.com", 443)
    )
    assert origin_key("http://a.example.com") == ("http", "a.example.com", 80)


@pytest.mark.parametrize(
    ("method", "origin", "asks_preflight", "verdict"),
    [
        ("POST", None, False, "serve"),
        ("POST", LISTED, False, "serve"),
        ("POST", f"https://{HOST}", False, "serve"),  # the server's own origin
        ("POST", "https://evil.example.com", False, "refuse"),
        ("OPTIONS", "https://evil.example.com", True, "refuse"),
        ("OPTIONS", LISTED, True, "preflight"),
        ("OPTIONS", f"https://{HOST}", True, "refuse"),  # same-origin pages never preflight
        ("OPTIONS", LISTED, False, "not_preflight"),
        ("OPTIONS", None, True, "not_preflight"),
    ],
)
def test_one_decision_screens_mcp_and_the_routes_beside_it_by_origin(
    method: str, origin: str | None, asks_preflight: bool, verdict: str
) -> None:
    policy = CorsPolicy([LISTED])
    assert policy.screen(method, origin, asks_preflight, HostAllowlist([HOST])) == verdict


@pytest.fixture(autouse=True)
def _no_metrics(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")


def _endpoint(*origins: str) -> McpEndpoint:
    settings = Settings(allowed_hosts=(HOST, "127.0.0.1:*"), cors_origins=origins, table_name="unused")
    return build_core(settings).endpoint


def _headers(reply: HttpReply) -> dict[str, str]:
    return dict(reply.headers)


def _cors_headers(reply: HttpReply) -> dict[str, str]:
    return {k: v for k, v in reply.headers if k.startswith("access-control-") or k == "vary"}


async def test_a_listed_origins_preflight_is_answered_204_with_the_origin_echoed_never_a_star() -> None:
    reply = await _endpoint(LISTED).handle("OPTIONS", {"host": HOST, "origin": LISTED, **PREFLIGHT}, b"")
    assert (reply.status, reply.body) == (204, b"")
    headers = _headers(reply)
    assert headers["access-control-allow-origin"] == LISTED
    assert headers["vary"] == "Origin"
    assert headers["access-control-allow-methods"] == "GET, POST, OPTIONS"  # GET: resumable streams (default)
    allowed = {h.strip() for h in headers["access-control-allow-headers"].split(",")}
    assert allowed >= {
        "content-type",
        "authorization",
        "mcp-protocol-version",
        "mcp-session-id",
        "mcp-method",
        "mcp-name",
        "last-event-id",
        "accept",
    }
    assert int(headers["access-control-max-age"]) > 0
    assert "access-control-allow-credentials" not in headers


async def test_a_preflight_from_an_unlisted_origin_is_403_without_cors_headers() -> None:
    endpoint = _endpoint(LISTED)
    for origin in ("https://evil.example.com", f"https://{HOST}", "http://127.0.0.1:5173"):
        # Not even the endpoint's own origin, or one the Host allowlist matches: same-origin pages never preflight.
        reply = await endpoint.handle("OPTIONS", {"host": HOST, "origin": origin, **PREFLIGHT}, b"")
        assert reply.status == 403, origin
        assert _cors_headers(reply) == {}


async def test_options_that_is_not_a_preflight_stays_405_like_get_and_delete() -> None:
    endpoint = _endpoint(LISTED)
    for method, headers in [("OPTIONS", {}), ("OPTIONS", {"origin": LISTED}), ("GET", {}), ("DELETE", {})]:
        reply = await endpoint.handle(method, {"host": HOST, **headers}, b"")
        assert reply.status == 405, (method, headers)
        assert _headers(reply)["allow"] == "POST"


async def test_a_post_from_a_listed_origin_is_served_and_readable_by_the_page() -> None:
    reply = await _endpoint(LISTED).handle("POST", {"host": HOST, "origin": LISTED, **JSON}, PING)
    assert reply.status == 200
    assert json.loads(reply.body) == {"jsonrpc": "2.0", "id": 1, "result": {}}
    headers = _headers(reply)
    assert headers["access-control-allow-origin"] == LISTED
    assert headers["vary"] == "Origin"
    exposed = {h.strip() for h in headers["access-control-expose-headers"].split(",")}
    assert exposed >= {"mcp-session-id", "mcp-protocol-version", "www-authenticate"}


async def test_an_origin_matching_the_host_allowlist_still_passes_as_same_origin_without_cors_headers() -> None:
    reply = await _endpoint(LISTED).handle("POST", {"host": HOST, "origin": f"https://{HOST}", **JSON}, PING)
    assert reply.status == 200
    assert _cors_headers(reply) == {}


async def test_any_other_origin_is_still_403_and_gets_no_cors_headers() -> None:
    reply = await _endpoint(LISTED).handle("POST", {"host": HOST, "origin": "https://evil.example.com", **JSON}, PING)
    assert reply.status == 403
    assert json.loads(reply.body)["error"]["message"] == "Origin not allowed"
    assert _cors_headers(reply) == {}


async def test_with_no_cors_origins_a_browser_origin_is_refused_as_before() -> None:
    endpoint = _endpoint()
    post = await endpoint.handle("POST", {"host": HOST, "origin": LISTED, **JSON}, PING)
    preflight = await endpoint.handle("OPTIONS", {"host": HOST, "origin": LISTED, **PREFLIGHT}, b"")
    assert (post.status, preflight.status) == (403, 403)


@pytest.mark.parametrize(
    ("method", "headers", "body", "status"),
    [
        ("GET", {}, b"", 405),
        ("POST", {"content-type": "text/plain"}, PING, 415),
        ("POST", JSON, b'{"jsonrpc": "2.0", "id": 1, "method": ', 400),
        ("POST", JSON, b'{"jsonrpc": "2.0", "id": 1, "method": "tools/destroy"}', 200),
        ("POST", JSON, b'{"jsonrpc": "2.0", "method": "notifications/initialized"}', 202),
    ],
)
async def test_error_replies_to_a_listed_origin_carry_the_cors_headers_too(
    method: str, headers: dict[str, str], body: bytes, status: int
) -> None:
    reply = await _endpoint(LISTED).handle(method, {"host": HOST, "origin": LISTED, **headers}, body)
    assert reply.status == status
    assert _headers(reply)["access-control-allow-origin"] == LISTED
    assert "www-authenticate" in _headers(reply)["access-control-expose-headers"]


def test_a_body_refused_before_it_is_read_is_readable_by_a_listed_origin() -> None:
    reply = _endpoint(LISTED).oversized({"host": HOST, "origin": LISTED})
    assert reply.status == 413
    assert _headers(reply)["access-control-allow-origin"] == LISTED


async def test_a_wrong_host_is_still_421_whatever_the_origin() -> None:
    reply = await _endpoint(LISTED).handle("OPTIONS", {"host": "evil.example.com", "origin": LISTED, **PREFLIGHT}, b"")
    assert reply.status == 421
