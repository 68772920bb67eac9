"""Calling tools and reading their results in tests: one place for the checks every functional test makes first."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator
from mcp import Client
from mcp_types import CallToolResult
from widget_mcp.server import build_server
from widget_mcp.wiring import Core


async def call_as(core: Core, tool: str, arguments: dict[str, Any], meta: dict[str, Any]) -> CallToolResult:
    """`tool` called through the official MCP client on `core`'s server in memory, with `meta` (a host's hints: who
    the caller is)."""
    async with Client(build_server(core.runtime), mode="legacy") as client:
        return await client.call_tool(tool, arguments, meta=meta)


def structured(result: CallToolResult) -> dict[str, Any]:
    """The result's structuredContent; a result without one fails the test, showing its text content."""
    assert result.structured_content is not None, result.content
    return dict(result.structured_content)


def error_state(result: CallToolResult) -> dict[str, Any]:
    """The state an error result carries (e.g. a conflict's current game): its structuredContent (ARCHITECTURE.md,
    error results), serialized after its sentence too for clients that read only text."""
    assert result.is_error, result.content
    last = result.content[-1]
    assert len(result.content) > 1, result.content
    state = json.loads(getattr(last, "text", ""))
    assert isinstance(state, dict), result.content
    assert result.structured_content == state, (result.structured_content, state)
    return state


def text_of(result: CallToolResult) -> str:
    """The result's text content, joined: what a host without UI shows."""
    return "\n".join(getattr(block, "text", "") for block in result.content)


def narration_of(result: CallToolResult) -> str:
    """The first text block: the narration of a success, the sentence of an error."""
    first = result.content[0]
    assert first.type == "text", result.content
    return first.text


def assert_text_carries_structure(result: CallToolResult) -> None:
    """What a client that hands its model only the text gives it: the narration (or an error's sentence) first,
    then, when the result has structuredContent, that content as JSON in the second block, and no other copy."""
    narration_of(result)
    texts = [block.text for block in result.content[1:] if block.type == "text"]
    if result.structured_content is None:
        assert not any(_is_json_object(text) for text in texts), result.content
        return
    second = result.content[1]
    assert second.type == "text", result.content
    assert json.loads(second.text) == result.structured_content
    assert texts.count(second.text) == 1, result.content


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def error_of(result: CallToolResult) -> dict[str, Any]:
    """An error result's `_meta.error` ({code, message, ...}), where widgets and programs read it; a result that
    is not an error fails the test, showing its text content."""
    assert result.is_error, result.content
    assert result.meta is not None, result.content
    assert "error" in result.meta, result.meta
    return dict(result.meta["error"])


def assert_conforms(result: CallToolResult, output_schema: Mapping[str, Any] | None) -> None:
    """What the TypeScript SDK v1's `callTool` (most hosts' client) checks on every result, errors included: a
    structuredContent, when there is one, is valid against the tool's outputSchema."""
    if result.structured_content is None:
        return
    assert output_schema is not None, "structuredContent from a tool without an outputSchema"
    problems = [e.message for e in Draft202012Validator(output_schema).iter_errors(result.structured_content)]
    assert not problems, (problems, result.structured_content)


async def output_schema(client: Client, tool: str) -> dict[str, Any] | None:
    """The outputSchema `tool` is listed with, as a client reads it."""
    listed = {t.name: t for t in (await client.list_tools()).tools}
    return listed[tool].output_schema
