"""`make dev` with sign-in, fed what a hostile page or client would send: the event feed names only tools the
server serves."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from widget_mcp.local.mcp_tap import UNKNOWN_TOOL
from widget_mcp.local.process import LocalServer, local_server

JSON = {"content-type": "application/json", "accept": "application/json"}
HOSTILE_NAME = '<img src=x onerror="alert(1)">' + "x" * 20_000


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
        events: list[dict[str, Any]] = []
        for line in lines:
            if line.startswith("data: "):
                events.append(json.loads(line.removeprefix("data: ")))
                if events[-1]["type"] == "done":
                    return events
    raise AssertionError(f"the stream ended before a done event: {events}")


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
