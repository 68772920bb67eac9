"""Read-only answers through the Lambda handler: after the first, they come from the endpoint's answer cache,
without the event loop, with the caller's id and the CORS headers, in both API Gateway event versions."""

from __future__ import annotations

import json
from typing import Any

import pytest
from apigw_events import Context, Handler, rpc, v1, v2

BROWSER = {"origin": "https://host.example.com"}


def _loop_runs(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Records each time the handler runs something on its event loop."""
    import widget_mcp.handler

    loop = widget_mcp.handler._loop
    runs: list[object] = []
    run = loop.run_until_complete

    def recorded(awaitable: Any) -> Any:
        runs.append(awaitable)
        return run(awaitable)

    monkeypatch.setattr(loop, "run_until_complete", recorded)
    return runs


@pytest.mark.parametrize("event", [v2, v1])
def test_a_repeated_tools_list_is_answered_without_the_event_loop_with_the_callers_id(
    handler: Handler, monkeypatch: pytest.MonkeyPatch, event: Any
) -> None:
    first = handler(event(rpc("tools/list", id="first"), headers=BROWSER), Context())
    runs = _loop_runs(monkeypatch)
    again = handler(event(rpc("tools/list", id=42), headers=BROWSER), Context())
    assert again["statusCode"] == first["statusCode"] == 200
    assert again["body"] == first["body"].replace('"id":"first"', '"id":42', 1)
    headers = again.get("headers") or {k: v[0] for k, v in again["multiValueHeaders"].items()}
    assert headers["access-control-allow-origin"] == BROWSER["origin"]
    assert runs == []


def test_a_tool_call_is_served_each_time_and_without_the_event_loop_when_the_tool_never_waits(
    handler: Handler, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = _loop_runs(monkeypatch)
    calls = [v2(rpc("tools/call", {"name": "display_demo", "arguments": {"message": m}})) for m in ("hi", "a b")]
    answers = [json.loads(handler(call, Context())["body"]) for call in calls]
    assert [a["result"]["structuredContent"]["words"] for a in answers] == [1, 2]  # served, not replayed
    assert runs == []
    # A request the kernel serves on the loop still goes there (a cache miss: resources/read of an unknown URI).
    handler(v2(rpc("resources/read", {"uri": "ui://widget/none.html"})), Context())
    assert len(runs) == 1


def test_a_template_read_answers_the_same_bytes_the_second_time(handler: Handler) -> None:
    listed = json.loads(handler(v2(rpc("resources/list")), Context())["body"])["result"]["resources"]
    uri = listed[0]["uri"]
    first = handler(v2(rpc("resources/read", {"uri": uri})), Context())
    assert handler(v2(rpc("resources/read", {"uri": uri})), Context()) == first
