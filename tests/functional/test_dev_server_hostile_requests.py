"""`make dev` with sign-in, fed what a hostile page or client would send: the event feed names only tools the
server serves, the local issuer registers only http(s) redirects and reads bounded bodies, and a loopback Host in
capitals is still loopback (plain http) in the protected-resource metadata and challenges."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from event_feed import read_events_until_done
from widget_mcp.local.issuer_routes import MAX_BODY_BYTES
from widget_mcp.local.mcp_tap import UNKNOWN_TOOL
from widget_mcp.local.process import LocalServer, local_server

JSON = {"content-type": "application/json", "accept": "application/json"}
HOSTILE_NAME = '<img src=x onerror="alert(1)">' + "x" * 20_000
LOOPBACK_CALLBACK = "http://127.0.0.1:1/callback"  # what the official SDK's OAuth client registers in the tests


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with local_server("hostile-dev-state", settings={"AUTH_MODE": "oauth"}) as running:
        yield running


def _call(server: LocalServer, name: str) -> None:
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": {}}}
    httpx.post(f"{server.base}/mcp", json=call, headers=JSON, timeout=10)


def _events_of_one_call(server: LocalServer, name: str) -> list[dict[str, Any]]:
    with httpx.Client(timeout=10) as http, http.stream("GET", f"{server.base}/events") as stream:
        lines = stream.iter_lines()
        assert next(lines) == ": connected"
        _call(server, name)
        return read_events_until_done(lines)


def test_a_call_to_a_tool_the_server_does_not_serve_is_reported_under_a_placeholder_not_its_name(
    server: LocalServer,
) -> None:
    events = _events_of_one_call(server, HOSTILE_NAME)
    assert [e["type"] for e in events] == ["status", "tool_start", "tool_end", "status", "done"]
    assert events[1]["data"]["name"] == events[2]["data"]["name"] == UNKNOWN_TOOL
    assert events[2]["data"]["is_error"] is True
    descriptions = [e["data"]["description"] for e in events if e["type"] == "status"]
    assert all(UNKNOWN_TOOL in d and "onerror" not in d and len(d) <= 64 for d in descriptions), descriptions
    # The endpoint's own error names what was called: the preview of it holds to the preview contract.
    preview = events[2]["data"]["result"]
    assert len(preview) <= 200
    assert "<" not in preview


def test_a_call_to_a_tool_the_server_serves_is_reported_under_its_name(server: LocalServer) -> None:
    listed = httpx.post(
        f"{server.base}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=JSON, timeout=10
    )
    served = [tool["name"] for tool in listed.json()["result"]["tools"]]
    events = _events_of_one_call(server, served[0])  # with no arguments: it may fail, but under its own name
    assert events[1]["data"]["name"] == events[2]["data"]["name"] == served[0]


@pytest.mark.parametrize(
    "redirect",
    [
        "javascript:alert(1)",
        "JavaScript://example.com/%0aalert(1)",
        "data:text/html,<script>alert(1)</script>",
        "file:///etc/passwd",
        "vbscript:msgbox(1)",
        "http://",
        "https:///callback",
        "https://host.example/callback#fragment",
        "https://host.example/call\nback",
        "http://host.example:99999/callback",
        "/relative/callback",
    ],
)
def test_the_local_issuer_refuses_a_redirect_uri_that_is_not_an_http_url(server: LocalServer, redirect: str) -> None:
    answer = httpx.post(
        f"{server.base}/issuer/register", json={"redirect_uris": [LOOPBACK_CALLBACK, redirect]}, timeout=10
    )
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] == "invalid_redirect_uri"
    assert "client_id" not in answer.json()


@pytest.mark.parametrize(
    "redirect", [LOOPBACK_CALLBACK, "http://localhost:6274/oauth/callback", "HTTPS://claude.ai/api/mcp/auth_callback"]
)
def test_the_local_issuer_registers_http_and_https_redirects(server: LocalServer, redirect: str) -> None:
    answer = httpx.post(f"{server.base}/issuer/register", json={"redirect_uris": [redirect]}, timeout=10)
    assert answer.status_code == 201, answer.text
    assert answer.json()["redirect_uris"] == [redirect]


def test_a_registration_of_exactly_the_body_bound_is_read_and_one_byte_more_is_413(server: LocalServer) -> None:
    bare = json.dumps({"redirect_uris": [LOOPBACK_CALLBACK], "client_name": ""}).encode()
    exact = bare[:-2] + b"n" * (MAX_BODY_BYTES - len(bare)) + b'"}'
    assert len(exact) == MAX_BODY_BYTES
    url = f"{server.base}/issuer/register"
    assert httpx.post(url, content=exact, headers=JSON, timeout=10).status_code == 201
    over = httpx.post(url, content=exact[:-2] + b'n"}', headers=JSON, timeout=10)
    assert over.status_code == 413, over.text
    assert over.json()["error"] == "invalid_client_metadata"


async def _megabytes() -> AsyncIterator[bytes]:
    for _ in range(64):
        yield b"x" * 65_536  # 4 MiB in all, with no Content-Length


@pytest.mark.parametrize(("path", "error"), [("register", "invalid_client_metadata"), ("token", "invalid_request")])
async def test_a_streamed_oversized_body_to_the_local_issuer_is_413_before_it_is_buffered(
    server: LocalServer, path: str, error: str
) -> None:
    async with httpx.AsyncClient(timeout=10) as http:
        answer = await http.post(f"{server.base}/issuer/{path}", content=_megabytes(), headers=JSON)
    assert answer.status_code == 413, answer.text
    assert answer.json()["error"] == error


@pytest.mark.parametrize("name", ["LOCALHOST", "LocalHost", "localhost"])
def test_a_loopback_host_in_any_case_is_named_with_plain_http(server: LocalServer, name: str) -> None:
    port = server.base.rsplit(":", 1)[1]
    host = {"host": f"{name}:{port}"}
    metadata = httpx.get(f"{server.base}/.well-known/oauth-protected-resource/mcp", headers=host, timeout=10)
    assert metadata.status_code == 200, metadata.text
    assert metadata.json()["resource"] == f"http://{name}:{port}/mcp"
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    refused = httpx.post(
        f"{server.base}/mcp", json=ping, headers={**JSON, **host, "authorization": "Basic eDp5"}, timeout=10
    )
    assert refused.status_code == 401
    expected = f'resource_metadata="http://{name}:{port}/.well-known/oauth-protected-resource/mcp"'
    assert expected in refused.headers["www-authenticate"]
