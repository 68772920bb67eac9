"""Every served tool's error results keep the contract clients rely on, derived from the registry: `isError`, the
sentence in `content`, `{code, message}` in `_meta.error`, and a structuredContent only where it validates against
the tool's outputSchema (the TypeScript SDK v1, which most hosts run, checks that on errors too)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from mcp import Client
from mcp_types import CallToolResult
from served_tools import SERVED_TOOLS
from tool_results import assert_conforms, assert_text_carries_structure, error_of, narration_of
from widget_mcp.server import build_server
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.wiring import build_core

ME = {"openai/subject": "error-contract"}
# One value of each JSON type: an argument gets the first its schema does not admit.
_BY_TYPE: list[tuple[str, Any]] = [
    ("array", [[1], [2]]),
    ("boolean", True),
    ("object", {"not": "this"}),
    ("number", 1.5),
    ("string", "x"),
]


def _types(schema: dict[str, Any]) -> set[str]:
    branches = schema.get("anyOf") or schema.get("oneOf") or [schema]
    found = {t for b in branches for t in ([b["type"]] if isinstance(b.get("type"), str) else b.get("type", []))}
    if "number" in found:
        found.add("integer")
    return found


def wrong_arguments(input_schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments that fail the input schema: each argument a value of a type it does not admit; for a tool without
    arguments, one it does not know."""
    wrong = {}
    for name, prop in input_schema.get("properties", {}).items():
        allowed = _types(prop)
        if allowed:
            wrong[name] = next(value for kind, value in _BY_TYPE if kind not in allowed)
    return wrong or {"not_an_argument": 1}


def made_up_arguments(input_schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments of the right shape naming state nobody made: each argument's own example, else for a required one a
    made-up id (a string), an empty object or its minimum."""
    required = set(input_schema.get("required", []))
    made_up: dict[str, Any] = {}
    for name, prop in input_schema.get("properties", {}).items():
        types = _types(prop)
        if prop.get("examples"):
            made_up[name] = prop["examples"][0]
        elif name in required and "string" in types:
            made_up[name] = "A" * min(24, prop.get("maxLength", 24))
        elif name in required and "object" in types:
            made_up[name] = {}
        elif name in required and "integer" in types:
            made_up[name] = prop.get("minimum", 0)
    return made_up


def assert_contract(result: CallToolResult, output_schema: dict[str, Any] | None) -> None:
    error = error_of(result)
    assert re.fullmatch(r"[a-z][a-z0-9_]*", error["code"]), error
    assert error["message"].strip(), error
    assert narration_of(result) == error["message"], result.content
    assert_text_carries_structure(result)
    assert_conforms(result, output_schema)


@pytest.fixture
def client(settings: Settings) -> Client:
    return Client(build_server(build_core(settings, store=InMemoryDocumentStore()).runtime), mode="legacy")


@pytest.mark.parametrize("tool", SERVED_TOOLS)
async def test_a_call_with_wrong_arguments_is_an_error_result_that_conforms_to_the_tools_output_schema(
    client: Client, tool: str
) -> None:
    async with client:
        listed = {t.name: t for t in (await client.list_tools()).tools}[tool]
        arguments = wrong_arguments(listed.input_schema)
        result = await client.call_tool(tool, arguments, meta=ME)

    # Refused unless the tool takes anything at all (no typed argument, unknown ones allowed): then it ran.
    if arguments.keys() != {"not_an_argument"} or listed.input_schema.get("additionalProperties") is False:
        error = error_of(result)
        assert error["code"] == "invalid_arguments"
        assert {where.split(".")[0] for where in error["fields"]} == set(arguments), error
        assert result.structured_content is None
    if result.is_error:
        assert_contract(result, listed.output_schema)
    else:
        assert_conforms(result, listed.output_schema)


@pytest.mark.parametrize("tool", SERVED_TOOLS)
async def test_a_call_naming_state_nobody_made_answers_a_result_that_conforms_to_the_tools_output_schema(
    client: Client, tool: str
) -> None:
    async with client:
        listed = {t.name: t for t in (await client.list_tools()).tools}[tool]
        result = await client.call_tool(tool, made_up_arguments(listed.input_schema), meta=ME)

    if result.is_error:
        assert_contract(result, listed.output_schema)
    else:
        assert_conforms(result, listed.output_schema)
