"""The server through the official SDK client, in process (no HTTP)."""

from __future__ import annotations

import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent
from served_tools import SERVED_TOOLS, USER_TOOLS
from widget_mcp.server import build_server
from widget_mcp.wiring import Core

MESSAGE_META = {"openai/subject": "v1/alice"}


@pytest.fixture
def client(core: Core) -> Client:
    return Client(build_server(core.runtime), mode="legacy")


async def test_tools_list_describes_the_demo_tool_in_both_dialects(client: Client, core: Core) -> None:
    async with client:
        tools = (await client.list_tools()).tools
    [demo] = [t for t in tools if t.name == "display_demo"]
    uri = core.runtime.template_uri("display")
    assert demo.meta is not None
    assert demo.meta["ui"]["resourceUri"] == demo.meta["openai/outputTemplate"] == uri
    assert demo.annotations is not None
    assert (demo.annotations.read_only_hint, demo.annotations.destructive_hint, demo.annotations.open_world_hint) == (
        True,
        False,
        False,
    )
    assert demo.output_schema is not None
    assert demo.output_schema["required"] == ["message", "length", "words"]


async def test_the_display_template_is_listed_and_readable_as_an_mcp_app(client: Client, core: Core) -> None:
    uri = core.runtime.template_uri("display")
    async with client:
        resources = (await client.list_resources()).resources
        read = await client.read_resource(uri)
    # One template per widget the served tools name, in the order the registry serves them.
    assert [str(r.uri) for r in resources] == list(core.runtime.templates)
    assert [str(r.uri) for r in resources][:3] == [
        uri,
        core.runtime.template_uri("chess-board"),
        core.runtime.template_uri("form"),
    ]
    [contents] = read.contents
    assert contents.mime_type == "text/html;profile=mcp-app"
    assert contents.meta == core.runtime.templates[uri].meta
    assert '<div id="root" data-widget-entry="display">' in contents.text  # type: ignore[union-attr]


async def test_the_demo_returns_three_tiers_with_widgets_in_emission_order(client: Client) -> None:
    async with client:
        result = await client.call_tool("display_demo", {"message": "hello big world"}, meta=MESSAGE_META)
    assert result == CallToolResult(
        content=[
            TextContent(type="text", text="Showed a message of 3 words."),
            TextContent(type="text", text='{"message":"hello big world","length":15,"words":3}'),
            TextContent(type="text", text="hello big world"),
            TextContent(type="text", text="characters: 15, words: 3"),
        ],
        structured_content={"message": "hello big world", "length": 15, "words": 3},
        meta={
            "widgets": [
                {
                    "type": "widget",
                    "widget": "text",
                    "data": {"text": "hello big world"},
                    "fallback": "hello big world",
                },
                {
                    "type": "widget",
                    "widget": "table",
                    "data": {"rows": [["characters", "15"], ["words", "3"]]},
                    "fallback": "characters: 15, words: 3",
                },
            ]
        },
        is_error=False,
    )


async def test_widgets_emitted_before_a_failure_are_discarded(client: Client) -> None:
    async with client:
        result = await client.call_tool("display_demo", {"message": "boom", "fail_after_widgets": True})
    message = "The demo failed on request, after emitting its widgets."
    assert result == CallToolResult(
        content=[TextContent(type="text", text=message)],
        meta={"error": {"code": "demo_failure", "message": message}},
        is_error=True,
    )


async def test_invalid_arguments_come_back_as_a_tool_error_the_model_can_fix(client: Client) -> None:
    async with client:
        result = await client.call_tool("display_demo", {"message": "", "extra": 1})
    message = (
        "Invalid arguments for display_demo: message: String should have at least 1 character; "
        "extra: Extra inputs are not permitted"
    )
    assert result == CallToolResult(
        content=[TextContent(type="text", text=message)],
        meta={
            "error": {
                "code": "invalid_arguments",
                "message": message,
                "fields": {
                    "message": "String should have at least 1 character",
                    "extra": "Extra inputs are not permitted",
                },
            }
        },
        is_error=True,
    )


async def test_the_modern_stateless_protocol_serves_the_same_tools_but_the_app_only_ones_to_a_client_without_widgets(
    core: Core,
) -> None:
    async with Client(build_server(core.runtime), mode="2026-07-28") as client:
        result = await client.call_tool("display_demo", {"message": "hi"})
        names = [t.name for t in (await client.list_tools()).tools]
    # The client declares no MCP Apps extension: only a model could call the app-only tools there.
    assert names == USER_TOOLS
    assert USER_TOOLS != SERVED_TOOLS
    assert result.structured_content == {"message": "hi", "length": 2, "words": 1}
