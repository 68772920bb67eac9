"""CORS for MCP hosts that run in a browser, over real loopback HTTP: a listed origin's preflight and calls are
answered with headers its page may read; any other origin is refused as before."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from servers import serve
from widget_mcp.settings import Settings
from widget_mcp.wiring import build_app, build_core

BROWSER_HOST = "https://host.example.com"
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("POWERTOOLS_METRICS_DISABLED", "true")
        core = build_core(
            Settings(allowed_hosts=("127.0.0.1:*",), cors_origins=(BROWSER_HOST,), table_name="browser-hosts")
        )
    with serve(build_app(core)) as url:
        yield url


async def test_a_listed_browser_origin_gets_its_preflight_answered(base_url: str) -> None:
    headers = {
        "origin": BROWSER_HOST,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization,content-type,mcp-protocol-version,mcp-method,mcp-name",
    }
    async with httpx.AsyncClient() as http:
        answer = await http.options(f"{base_url}/mcp", headers=headers)
    assert answer.status_code == 204
    assert answer.content == b""
    assert answer.headers["access-control-allow-origin"] == BROWSER_HOST
    assert answer.headers["access-control-allow-methods"] == "GET, POST, OPTIONS"  # GET: resumable streams
    assert answer.headers["vary"] == "Origin"
    allowed = {h.strip() for h in answer.headers["access-control-allow-headers"].split(",")}
    assert set(headers["access-control-request-headers"].split(",")) <= allowed
    assert int(answer.headers["access-control-max-age"]) > 0


async def test_an_unlisted_origin_gets_403_and_no_cors_headers_for_its_preflight_and_its_post(base_url: str) -> None:
    origin = {"origin": "https://evil.example.com"}
    async with httpx.AsyncClient() as http:
        preflight = await http.options(f"{base_url}/mcp", headers={**origin, "access-control-request-method": "POST"})
        post = await http.post(f"{base_url}/mcp", json=PING, headers=origin)
    for answer in (preflight, post):
        assert answer.status_code == 403
        assert "access-control-allow-origin" not in answer.headers
    assert post.json()["error"]["message"] == "Origin not allowed"


async def test_a_post_from_a_listed_origin_is_answered_with_headers_the_page_may_read(base_url: str) -> None:
    async with httpx.AsyncClient() as http:
        answer = await http.post(f"{base_url}/mcp", json=PING, headers={"origin": BROWSER_HOST})
    assert answer.status_code == 200
    assert answer.json()["result"] == {}
    assert answer.headers["access-control-allow-origin"] == BROWSER_HOST
    assert answer.headers["vary"] == "Origin"
    exposed = {h.strip() for h in answer.headers["access-control-expose-headers"].split(",")}
    assert {"mcp-session-id", "mcp-protocol-version", "www-authenticate"} <= exposed
