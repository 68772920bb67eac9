"""The app over real loopback HTTP, driven by the official streamable-HTTP client in both protocol eras."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mcp import Client
from served_tools import SERVED_TOOLS, USER_TOOLS
from servers import serve
from widget_mcp.wiring import Core, build_app


@pytest.fixture
def base_url(core: Core) -> Iterator[str]:
    with serve(build_app(core)) as url:
        yield url


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_the_official_client_lists_reads_and_calls_over_http(base_url: str, core: Core, mode: str) -> None:
    uri = core.runtime.template_uri("display")
    async with Client(f"{base_url}/mcp", mode=mode) as client:  # type: ignore[arg-type]
        tools = [t.name for t in (await client.list_tools()).tools]
        resources = [str(r.uri) for r in (await client.list_resources()).resources]
        html = (await client.read_resource(uri)).contents[0]
        result = await client.call_tool("display_demo", {"message": "over the wire"}, meta={"openai/subject": "v1/b"})
    # A client that does not declare the MCP Apps extension is not listed the app-only tools (2026-07-28 says so on
    # every request; 2025-11-25 in the session its listing names).
    assert tools == USER_TOOLS
    assert uri in resources
    assert html.mime_type == "text/html;profile=mcp-app"
    assert result.structured_content == {"message": "over the wire", "length": 13, "words": 3}
    assert result.meta is not None
    assert len(result.meta["widgets"]) == 2


async def test_health_answers_json(base_url: str) -> None:
    async with httpx.AsyncClient() as http:
        response = await http.get(f"{base_url}/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "version": "0.1.0", "tools": len(SERVED_TOOLS)}


async def test_a_streamed_oversized_body_is_refused_before_it_is_buffered(base_url: str) -> None:
    async def chunks():  # type: ignore[no-untyped-def]
        for _ in range(64):
            yield b"x" * 65_536  # 4 MiB in all, with no Content-Length

    async with httpx.AsyncClient() as http:
        response = await http.post(
            f"{base_url}/mcp",
            content=chunks(),
            headers={"content-type": "application/json", "accept": "application/json"},
        )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == -32600


async def test_get_on_mcp_is_405_over_http(base_url: str) -> None:
    async with httpx.AsyncClient() as http:
        response = await http.get(f"{base_url}/mcp", headers={"accept": "text/event-stream"})
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"


async def test_widgets_are_served_from_the_bundle_directory_in_local_mode(core: Core, tmp_path: Path) -> None:
    (tmp_path / "display.js").write_text("export {};")
    with serve(build_app(core, widget_dir=tmp_path)) as url:
        async with httpx.AsyncClient() as http:
            found = await http.get(f"{url}/widgets/display.js")
            missing = await http.get(f"{url}/widgets/nope.js")
    assert found.status_code == 200
    assert found.headers["content-type"].startswith(("text/javascript", "application/javascript"))
    assert missing.status_code == 404


def test_before_the_bundles_are_built_widgets_answer_404_with_a_hint(core: Core, tmp_path: Path) -> None:
    with serve(build_app(core, widget_dir=tmp_path / "dist")) as url, httpx.Client() as http:
        response = http.get(f"{url}/widgets/display.js")
    assert response.status_code == 404
    assert "not built" in response.json()["hint"]
