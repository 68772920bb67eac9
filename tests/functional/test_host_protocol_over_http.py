"""Protocol details MCP Apps hosts rely on, read through the official client in both protocol eras: resource
templates, the MCP Apps extension, and top-level securitySchemes (over loopback HTTP; in process with sign-in,
which would otherwise need an issuer)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import mcp_types
import pytest
from mcp import Client
from pydantic import TypeAdapter
from served_tools import USER_TOOLS
from servers import serve
from widget_mcp.server import build_runtime, build_server
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.wiring import Core, build_app, build_books

APPS_EXTENSION = {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}


@pytest.fixture
def base_url(core: Core) -> Iterator[str]:
    with serve(build_app(core)) as url:
        yield url


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_resource_templates_are_an_empty_list_not_method_not_found(base_url: str, mode: str) -> None:
    async with Client(f"{base_url}/mcp", mode=mode) as client:  # type: ignore[arg-type]
        templates = await client.list_resource_templates()
    assert templates.resource_templates == []


async def test_initialize_advertises_the_mcp_apps_extension_as_server_discover_does(base_url: str) -> None:
    async with Client(f"{base_url}/mcp", mode="legacy") as client:
        assert client.protocol_version == "2025-11-25"
        assert client.server_capabilities.extensions == APPS_EXTENSION
    async with Client(f"{base_url}/mcp", mode="2026-07-28") as client:
        # mode="2026-07-28" starts without a probe; ask the server itself.
        discovered = await client.session.send_discover("2026-07-28")
    assert discovered["capabilities"]["extensions"] == APPS_EXTENSION


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_every_tool_carries_security_schemes_at_the_top_level_and_in_meta(base_url: str, mode: str) -> None:
    async with Client(f"{base_url}/mcp", mode=mode) as client:  # type: ignore[arg-type]
        # The client's Tool model drops fields outside the MCP schema; ask for the result as sent.
        listed = await client.session.send_request(mcp_types.ListToolsRequest(), TypeAdapter(dict[str, Any]))
    tools = listed["tools"]
    # A client that does not declare the MCP Apps extension is not listed the app-only tools (2026-07-28 says so on
    # every request; 2025-11-25 in the session its listing names).
    assert [t["name"] for t in tools] == USER_TOOLS
    for tool in tools:
        assert tool["securitySchemes"] == [{"type": "noauth"}], tool["name"]
        assert tool["_meta"]["securitySchemes"] == tool["securitySchemes"]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_with_sign_in_on_a_protected_tools_top_level_security_schemes_name_its_scopes(mode: str) -> None:
    settings = Settings(
        table_name="state",
        auth_mode="oauth",
        oauth_issuer="https://issuer.example.com",
        oauth_audience=("client-1",),
        oauth_scope_prefix="https://mcp.example.com/mcp/",
    )
    server = build_server(build_runtime(settings, build_books(settings, InMemoryDocumentStore())))
    async with Client(server, mode=mode) as client:  # type: ignore[arg-type]
        listed = await client.session.send_request(mcp_types.ListToolsRequest(), TypeAdapter(dict[str, Any]))
    schemes = {t["name"]: t["securitySchemes"] for t in listed["tools"]}
    assert schemes["display_demo"] == [{"type": "noauth"}]
    assert schemes["chess_move"] == [{"type": "oauth2", "scopes": ["https://mcp.example.com/mcp/chess"]}]
