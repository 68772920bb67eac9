"""A repeated routing header through `widget_mcp.handler.handler`, as API Gateway delivers it: the HTTP API (v2)
joins its values with commas, the REST API (v1) lists them in multiValueHeaders. Either is refused 400 with a
JSON-RPC Header Mismatch, as the ASGI server refuses the raw lines
(tests/functional/test_repeated_routing_headers.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from apigw_events import Context, Handler, rpc, v1, v2
from served_tools import USER_TOOLS
from widget_mcp.transport.header_lines import ROUTING_HEADERS

MODERN = "2026-07-28"
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
ROUTING = {"mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": USER_TOOLS[0]}
OTHER = {"mcp-protocol-version": "2025-11-25", "mcp-method": "tools/list", "mcp-name": "another_tool"}
CALL = rpc("tools/call", {"name": USER_TOOLS[0], "arguments": {}, "_meta": ENVELOPE}, id=7)
LIST = rpc("tools/list", {"_meta": ENVELOPE}, id=7)
CASES = [(name, first) for name in sorted(ROUTING_HEADERS) for first in (True, False)]


def values(name: str, first: bool) -> list[str]:
    return [OTHER[name], ROUTING[name]] if first else [ROUTING[name], OTHER[name]]


def assert_refused(response: dict[str, Any], name: str) -> None:
    assert response["statusCode"] == 400, response["body"]
    reply = json.loads(response["body"])
    assert reply["error"]["code"] == -32020
    assert reply["error"]["message"] == f"{name} header appears more than once"
    assert reply["id"] == 7


def test_a_request_with_each_routing_header_once_is_served_from_either_api(handler: Handler) -> None:
    once = {"mcp-protocol-version": MODERN, "mcp-method": "tools/list"}
    for event in (v2(LIST, headers=once), v1(LIST, headers=once)):
        response = handler(event, Context())

        assert response["statusCode"] == 200, response["body"]
        assert json.loads(response["body"])["result"]["tools"]


@pytest.mark.parametrize(("name", "first"), CASES)
def test_a_routing_header_the_http_api_joined_with_a_comma_is_refused(handler: Handler, name: str, first: bool) -> None:
    event = v2(CALL, headers={**ROUTING, name: ",".join(values(name, first))})

    assert_refused(handler(event, Context()), name)


@pytest.mark.parametrize(("name", "first"), CASES)
def test_a_routing_header_the_rest_api_lists_twice_is_refused(handler: Handler, name: str, first: bool) -> None:
    event = v1(CALL, headers=ROUTING)
    title = "-".join(part.capitalize() for part in name.split("-"))
    event["headers"].pop(name)
    event["multiValueHeaders"].pop(name)
    event["headers"][title] = values(name, first)[-1]  # v1's `headers` keeps the last
    event["multiValueHeaders"][title] = values(name, first)

    assert_refused(handler(event, Context()), name)
