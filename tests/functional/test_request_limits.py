"""The endpoint's limits (body size, JSON depth, strict JSON) and a cap on every argument of every tool."""

from __future__ import annotations

import json
from typing import Any

import pytest
from argument_caps import Unplanned, declared_arguments, plan_over_cap
from served_tools import SERVED_TOOLS
from widget_mcp.apps.forms.inputs import MAX_ANSWER_BYTES, MAX_METADATA_BYTES
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.wiring import Core, build_core

HOST = "api.example.com"
HEADERS = {"host": HOST, "content-type": "application/json", "accept": "application/json"}
ME = {"openai/subject": "cap-tester"}
FORM = {"type": "object", "properties": {"name": {"type": "string"}}}


@pytest.fixture
def limited(monkeypatch: pytest.MonkeyPatch) -> Core:
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    settings = Settings(allowed_hosts=(HOST,), max_body_bytes=4096, max_json_depth=8)
    return build_core(settings, store=InMemoryDocumentStore())


async def _post(core: Core, body: bytes) -> tuple[int, Any]:
    reply = await core.endpoint.handle("POST", HEADERS, body)
    return reply.status, json.loads(reply.body)


def _ping(params: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": params}, separators=(",", ":")).encode()


async def test_a_body_of_exactly_the_size_limit_is_read_and_one_byte_more_is_413(limited: Core) -> None:
    bare = _ping({"pad": ""})
    exact = _ping({"pad": "p" * (4096 - len(bare))})
    assert len(exact) == 4096
    assert await _post(limited, exact) == (200, {"jsonrpc": "2.0", "id": 1, "result": {}})
    assert await _post(limited, exact[:-2] + b'p"}}') == (
        413,
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Request body exceeds 4096 bytes"}},
    )


def _nested(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


async def test_json_at_the_depth_limit_is_served_and_one_level_deeper_is_refused(limited: Core) -> None:
    # The message object and params are two levels; the rest is the nested list.
    assert await _post(limited, _ping({"a": _nested(6)})) == (200, {"jsonrpc": "2.0", "id": 1, "result": {}})
    assert await _post(limited, _ping({"a": _nested(7)})) == (
        400,
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "JSON nests deeper than 8 levels"}},
    )


@pytest.mark.parametrize(
    "body",
    [
        b'{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}',  # an escaped lone surrogate
        b'{"jsonrpc":"2.0","id":"\xed\xa0\x80","method":"ping"}',  # the same surrogate as (invalid) UTF-8 bytes
        b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":NaN}}',
        b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":-Infinity}}',
        b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":1e999}}',
        b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":"\xff"}}',
    ],
)
async def test_text_that_is_not_strict_utf8_json_is_a_parse_error_not_a_crash(limited: Core, body: bytes) -> None:
    status, answer = await _post(limited, body)
    assert status == 400
    assert answer["error"]["code"] == -32700
    assert answer["id"] is None


async def test_an_escaped_surrogate_pair_is_one_character_and_is_answered_as_utf8(limited: Core) -> None:
    body = b'{"jsonrpc":"2.0","id":"\\ud83d\\ude00","method":"ping"}'
    reply = await limited.endpoint.handle("POST", HEADERS, body)
    assert reply.body == '{"jsonrpc":"2.0","id":"\U0001f600","result":{}}'.encode()


# Arguments that only a validator can cap (JSON objects measured in bytes): an over-cap value for each.
VALIDATOR_CAPS: dict[tuple[str, str], Any] = {
    ("ask_question", "metadata"): {"note": "n" * MAX_METADATA_BYTES},
    ("submit_form", "data"): {"name": "n" * MAX_ANSWER_BYTES},
    ("record_form_answer", "data"): {"name": "n" * MAX_ANSWER_BYTES},
}


def _declared_arguments() -> list[tuple[str, str, dict[str, Any]]]:
    settings = Settings(allowed_hosts=(HOST,))
    return declared_arguments(build_core(settings, store=InMemoryDocumentStore()).runtime.tool_list)


ARGUMENTS = _declared_arguments()
# The value sent past each argument's cap; an `Unplanned` (no cap the test reads) fails its test, saying what to add.
OVER_CAP = [(tool, argument, plan_over_cap(tool, argument, prop, VALIDATOR_CAPS)) for tool, argument, prop in ARGUMENTS]


def test_every_argument_of_every_served_tool_has_a_cap_from_its_schema_or_a_validator() -> None:
    assert [value.message for _, _, value in OVER_CAP if isinstance(value, Unplanned)] == []


@pytest.mark.parametrize(("tool", "argument", "value"), OVER_CAP, ids=[f"{t}.{a}" for t, a, _ in OVER_CAP])
async def test_an_argument_over_its_cap_is_refused_with_invalid_arguments_naming_it(
    limited: Core, tool: str, argument: str, value: Any
) -> None:
    if isinstance(value, Unplanned):
        pytest.fail(value.message, pytrace=False)
    result = await limited.runtime.call(tool, {argument: value}, ME)
    assert result["isError"] is True
    assert result["_meta"]["error"]["code"] == "invalid_arguments"
    fields = result["_meta"]["error"]["fields"]
    assert any(where.split(".")[0] == argument for where in fields), fields


@pytest.mark.parametrize("tool", sorted(set(SERVED_TOOLS) - {tool for tool, _, _ in ARGUMENTS}))
async def test_a_tool_without_arguments_refuses_any_argument(limited: Core, tool: str) -> None:
    result = await limited.runtime.call(tool, {"anything": 1}, ME)
    assert result["_meta"]["error"]["code"] == "invalid_arguments"


@pytest.mark.parametrize(
    "arguments",
    [
        {"question": "[" * 5_000 + "]" * 5_000},
        {"question": FORM, "uiSchema": "{" * 5_000},
        {"question": FORM, "metadata": {"next": {"schema": "[" * 5_000 + "]" * 5_000}}},
        {"question": FORM, "metadata": {"next": json.dumps({"schema": "[" * 5_000 + "]" * 5_000})}},
    ],
)
async def test_json_text_nested_thousands_deep_in_a_form_is_an_invalid_schema_not_a_crash(
    limited: Core, arguments: dict[str, Any]
) -> None:
    result = await limited.runtime.call("ask_question", arguments, ME)
    assert result["isError"] is True
    assert result["_meta"]["error"]["code"] == "invalid_schema"
    assert result["structuredContent"]["type"] == "dgui_error"
