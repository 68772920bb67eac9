"""Input requests, progress and log messages through the official `mcp` client: in process, over loopback HTTP
(uvicorn, streamed) and through the endpoint as Lambda drives it (buffered)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestParams,
    ElicitResult,
    LoggingMessageNotificationParams,
    TextContent,
)
from tool_results import assert_text_carries_structure
from widget_mcp.server import build_runtime, build_server

from tests.trip_book import GO, book, served_trips, trip_endpoint, trip_settings

MODERN_HEADERS = {
    "host": "127.0.0.1:9",
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
}


class Answers:
    """The client's side: answers every elicitation with `form`, every sampling request with `text`."""

    def __init__(self, form: dict[str, Any], text: str = "Take the tram.") -> None:
        self.form = form
        self.text = text
        self.asked: list[str] = []

    async def elicit(self, context: Any, params: ElicitRequestParams) -> ElicitResult:
        self.asked.append(params.message)
        return ElicitResult(action="accept", content=self.form)

    async def sample(self, context: Any, params: CreateMessageRequestParams) -> CreateMessageResult:
        self.asked.append("sampling")
        return CreateMessageResult(role="assistant", content=TextContent(type="text", text=self.text), model="m")


@pytest.fixture
def base_url() -> Iterator[str]:
    with served_trips(trip_settings()) as url:
        yield url


def client(target: Any, answers: Answers, **options: Any) -> Client:
    return Client(
        target, mode="2026-07-28", elicitation_callback=answers.elicit, sampling_callback=answers.sample, **options
    )


async def test_the_official_client_answers_an_input_request_in_process() -> None:
    answers = Answers({"name": "Ada", "seats": 2})
    async with client(build_server(build_runtime(trip_settings(), [book])), answers) as mcp:
        result = await mcp.call_tool("book_trip", {"city": "Oslo"})
    assert answers.asked == ["Who is travelling to Oslo?"]
    assert result.structured_content == {"city": "Oslo", "traveller": "Ada", "seats": 2, "note": None}


async def test_two_rounds_of_input_requests_resume_over_http(base_url: str) -> None:
    answers = Answers({"name": "Ada"}, text="Ride the ferry.")
    async with client(f"{base_url}/mcp", answers) as mcp:
        result = await mcp.call_tool("travel_tip", {"city": "Oslo"})
    assert answers.asked == ["What is your name?", "sampling"]
    assert result.structured_content == {"city": "Oslo", "tip": "Ride the ferry.", "traveller": "Ada"}


async def test_a_declined_form_reaches_the_handler(base_url: str) -> None:
    async def decline(context: Any, params: ElicitRequestParams) -> ElicitResult:
        return ElicitResult(action="decline")

    async with Client(f"{base_url}/mcp", mode="2026-07-28", elicitation_callback=decline) as mcp:
        result = await mcp.call_tool("book_trip", {"city": "Oslo"})
    assert result.content[0] == TextContent(type="text", text="Nothing was booked.")
    assert_text_carries_structure(result)


async def test_a_tampered_state_over_http_is_a_clear_invalid_params_error(base_url: str) -> None:
    async with Client(f"{base_url}/mcp", mode="2026-07-28", elicitation_callback=Answers({}).elicit) as mcp:
        first = await mcp.session.call_tool("book_trip", {"city": "Oslo"}, allow_input_required=True)
        state = getattr(first, "request_state", None)
        assert isinstance(state, str)
        with pytest.raises(MCPError) as refused:
            await mcp.call_tool(
                "book_trip",
                {"city": "Oslo"},
                input_responses={"traveller": ElicitResult(action="accept", content={"name": "Eve"})},
                request_state=state[:-4] + "AAAA",
            )
    assert refused.value.error.code == -32602
    assert "not issued by this server or was altered" in refused.value.error.message


async def test_a_client_without_the_elicitation_capability_is_told_which_one_is_missing(base_url: str) -> None:
    async with Client(f"{base_url}/mcp", mode="2026-07-28") as mcp:
        with pytest.raises(MCPError) as refused:
            await mcp.call_tool("book_trip", {"city": "Oslo"})
    assert refused.value.error.code == -32021
    assert refused.value.error.data == {"requiredCapabilities": {"elicitation": {}}}


async def test_with_resumable_streams_off_a_handshake_client_gets_an_error_result_naming_the_protocol_it_needs() -> (
    None
):
    with served_trips(trip_settings(resumable_streams=False)) as url:
        async with Client(f"{url}/mcp", mode="legacy", elicitation_callback=Answers({}).elicit) as mcp:
            result = await mcp.call_tool("book_trip", {"city": "Oslo"})
    assert result.is_error
    assert result.meta is not None
    assert result.meta["error"]["code"] == "input_unsupported"


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("tool", ["count_up", "count_up_sync"])
async def test_progress_streams_to_the_official_client_in_both_eras(base_url: str, mode: str, tool: str) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with Client(f"{base_url}/mcp", mode=mode) as mcp:  # type: ignore[arg-type]
        result = await mcp.call_tool(tool, {"steps": 3}, progress_callback=on_progress)
    assert result.structured_content == {"steps": 3}
    assert [(p, t) for p, t, _ in seen] == [(1, 3), (2, 3), (3, 3)]


async def test_log_messages_reach_a_client_that_set_a_level_and_only_at_it(base_url: str) -> None:
    logged: list[LoggingMessageNotificationParams] = []

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        logged.append(params)

    async with Client(f"{base_url}/mcp", mode="2026-07-28", logging_callback=on_log, log_level="info") as mcp:
        await mcp.call_tool("count_up", {"steps": 3})
    assert [(m.level, m.data) for m in logged] == [("info", "counted 3")]
    logged.clear()
    async with Client(f"{base_url}/mcp", mode="2026-07-28", logging_callback=on_log) as mcp:
        await mcp.call_tool("count_up", {"steps": 3})
    assert logged == []


async def test_the_events_arrive_while_the_tool_runs_over_http(base_url: str) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "wait_for_go", "arguments": {}, "_meta": {"progressToken": "p"}},
    }
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    received = b""
    GO.clear()
    try:
        async with (
            httpx.AsyncClient() as http,
            http.stream("POST", f"{base_url}/mcp", json=body, headers=headers) as reply,
        ):
            assert reply.headers["content-type"] == "text/event-stream"
            chunks = reply.aiter_bytes()
            received = await anext(chunks)
            # The tool is still waiting: what arrived is its first progress event, and no result yet.
            assert b'"progress":1' in received
            assert b'"result"' not in received
            GO.set()
            async for chunk in chunks:
                received += chunk
    finally:
        GO.set()
    events = [json.loads(line[5:]) for line in received.splitlines() if line.startswith(b"data:")]
    assert [e.get("method") for e in events] == ["notifications/progress"] * 2 + [None]
    assert events[-1]["id"] == 7
    assert events[-1]["result"]["structuredContent"] == {"steps": 2}


async def test_a_buffered_endpoint_answers_the_events_then_the_result_in_one_body() -> None:
    """What Lambda returns through API Gateway: the same event stream, delivered whole."""
    endpoint = trip_endpoint(trip_settings())
    meta = {
        "progressToken": 5,
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "count_up_sync", "arguments": {"steps": 2}, "_meta": meta},
    }
    reply = await endpoint.handle("POST", {**MODERN_HEADERS, "mcp-name": "count_up_sync"}, json.dumps(message).encode())
    assert dict(reply.headers)["content-type"] == "text/event-stream"
    events = [json.loads(line[5:]) for line in reply.body.splitlines() if line.startswith(b"data:")]
    assert [e["params"]["progress"] for e in events[:-1]] == [1, 2]
    assert events[-1]["result"]["structuredContent"] == {"steps": 2}
    json_only = await endpoint.handle(
        "POST",
        {**MODERN_HEADERS, "accept": "application/json", "mcp-name": "count_up_sync"},
        json.dumps(message).encode(),
    )
    assert json.loads(json_only.body)["result"]["structuredContent"] == {"steps": 2}
