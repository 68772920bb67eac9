"""A request that repeats a routing header (`Mcp-Method`, `Mcp-Name`, `Mcp-Protocol-Version`) is refused 400 with
a JSON-RPC Header Mismatch, whichever copy comes first and whatever its protocol version: a gateway in front that
reads the first copy and a server that kept the last would otherwise serve what the gateway never authorized. In
process (the ASGI app) and over loopback uvicorn; API Gateway's events in tests/lambda/."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from widget_mcp.app import create_app
from widget_mcp.transport.header_lines import ROUTING_HEADERS, header_lines

from tests.trip_book import book, served_trips, trip_endpoint, trip_settings

MODERN = "2026-07-28"
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
ACCEPT = [("content-type", "application/json"), ("accept", "application/json")]


def modern_call(tool: str) -> tuple[list[tuple[str, str]], dict[str, Any]]:
    """A 2026-07-28 call of `tool` (any the app declares) and its routing headers, each once."""
    message = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": tool, "arguments": {"steps": 1}, "_meta": ENVELOPE},
    }
    routing = [("mcp-protocol-version", MODERN), ("mcp-method", "tools/call"), ("mcp-name", tool)]
    return routing, message


def repeated(routing: list[tuple[str, str]], name: str, other: str, first: bool) -> list[tuple[str, str]]:
    """`routing` with `name` sent twice: `other` before its value (`first`) or after it."""
    lines = []
    for key, value in routing:
        lines += (
            ([(key, other), (key, value)] if first else [(key, value), (key, other)]) if key == name else [(key, value)]
        )
    return lines


TOOL = "count_up_sync"  # trip_book's: takes `steps`
OTHER = {"mcp-protocol-version": "2025-11-25", "mcp-method": "tools/list", "mcp-name": "another_tool"}
CASES = [(name, first) for name in sorted(ROUTING_HEADERS) for first in (True, False)]


@pytest.fixture
def base_url() -> Iterator[str]:
    with served_trips(trip_settings()) as url:
        yield url


async def post_in_process(lines: list[tuple[str, str]], message: dict[str, Any]) -> httpx.Response:
    """`message` posted with these header lines to the ASGI app (as uvicorn hands it over), in this process."""
    settings = trip_settings()
    app = create_app(trip_endpoint(settings), max_body_bytes=settings.max_body_bytes, tool_count=len(book.tools))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as client:
        return await client.post("/mcp", content=json.dumps(message), headers=[*ACCEPT, *lines])


def assert_refused(response: httpx.Response, name: str) -> None:
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == -32020
    assert error["message"] == f"{name} header appears more than once"
    assert response.json()["id"] == 7


@pytest.mark.parametrize(("name", "first"), CASES)
async def test_a_repeated_routing_header_is_refused_in_process_whichever_copy_comes_first(
    name: str, first: bool
) -> None:
    routing, message = modern_call(TOOL)

    assert (await post_in_process(routing, message)).status_code == 200
    assert_refused(await post_in_process(repeated(routing, name, OTHER[name], first), message), name)


@pytest.mark.parametrize(("name", "first"), CASES)
def test_a_repeated_routing_header_is_refused_over_loopback_uvicorn_whichever_copy_comes_first(
    base_url: str, name: str, first: bool
) -> None:
    routing, message = modern_call(TOOL)
    with httpx.Client(timeout=10) as http:
        served = http.post(f"{base_url}/mcp", content=json.dumps(message), headers=[*ACCEPT, *routing])
        refused = http.post(
            f"{base_url}/mcp",
            content=json.dumps(message),
            headers=[*ACCEPT, *repeated(routing, name, OTHER[name], first)],
        )

    assert served.status_code == 200, served.text
    assert_refused(refused, name)


def test_a_handshake_era_request_that_repeats_its_protocol_version_is_refused_too(base_url: str) -> None:
    message = {"jsonrpc": "2.0", "id": 7, "method": "tools/list"}
    twice = [("mcp-protocol-version", "2025-06-18"), ("mcp-protocol-version", "2025-11-25")]
    with httpx.Client(timeout=10) as http:
        once = http.post(f"{base_url}/mcp", content=json.dumps(message), headers=[*ACCEPT, twice[1]])
        refused = http.post(f"{base_url}/mcp", content=json.dumps(message), headers=[*ACCEPT, *twice])

    assert once.status_code == 200, once.text
    assert_refused(refused, "mcp-protocol-version")


def test_header_lines_keep_other_headers_repeated_as_before() -> None:
    lines = header_lines([("Accept", "application/json"), ("accept", "text/event-stream"), ("X-Other", "1")])

    assert lines == {"accept": "text/event-stream", "x-other": "1"}
    assert lines.repeated is None


@pytest.mark.parametrize("second", ["Mcp-Param-Shelf", "mcp-param-shelf", "MCP-PARAM-SHELF"])
def test_a_repeated_argument_header_counts_as_a_repeated_routing_header_in_any_case(second: str) -> None:
    # Gateways route and authorize on a tool's mirrored arguments too (`x-mcp-header`): the first copy they read
    # must be the only one.
    lines = header_lines([("Mcp-Param-Shelf", "public"), (second, "poetry")])
    assert lines.repeated == "mcp-param-shelf"
