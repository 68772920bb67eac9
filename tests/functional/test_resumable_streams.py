"""Resumable streams (RESUMABLE_STREAMS): MCP 2025-11-25 clients answer a tool's input requests.

Through the official Python client over loopback HTTP, and through the buffered endpoint as Lambda drives it,
request by request, for what a client should never be able to do: resume or answer another session's call, forge
an event id or a session, run a call twice."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest
from clocks import Clock
from mcp import Client
from widget_mcp.secrets import SecretUnavailable
from widget_mcp.storage.documents import Document
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit.call import ToolCall
from widget_mcp.transport.endpoint import McpEndpoint
from widget_mcp.transport.replies import HttpReply
from widget_mcp.transport.resumption import MAX_RESUMABLE_ID_LENGTH

from tests.functional.test_input_requests_over_http import Answers
from tests.trip_book import served_trips, trip_endpoint, trip_settings

HOST = "127.0.0.1:9"
HEADERS = {
    "host": HOST,
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
}
HEADERS_OVER_HTTP = {k: v for k, v in HEADERS.items() if k not in ("host", "content-type")}
CAPABILITIES = {"elicitation": {}, "sampling": {}}
TRAVELLER = {"action": "accept", "content": {"name": "Ada", "seats": 2}}


class Runs:
    """Counts the tool calls that start (each run of a handler)."""

    def __init__(self) -> None:
        self.count = 0

    def started(self, tool: str, call: ToolCall) -> None:
        self.count += 1

    def finished(self, tool: str, error_code: str | None, seconds: float) -> None:
        pass


class ReadCountingStore(InMemoryDocumentStore):
    """The in-memory store, counting its reads."""

    reads = 0

    def get(self, owner: str, kind: str, doc_id: str) -> Document | None:
        self.reads += 1
        return super().get(owner, kind, doc_id)


@pytest.fixture
def base_url() -> Iterator[str]:
    with served_trips(trip_settings(resumable_streams=True)) as url:
        yield url


async def test_a_handshake_client_answers_a_tools_input_request_on_a_resumed_stream(base_url: str) -> None:
    answers = Answers({"name": "Ada", "seats": 2})
    async with Client(f"{base_url}/mcp", mode="legacy", elicitation_callback=answers.elicit) as mcp:
        result = await mcp.call_tool("book_trip", {"city": "Oslo"})
    assert answers.asked == ["Who is travelling to Oslo?"]
    assert result.structured_content == {"city": "Oslo", "traveller": "Ada", "seats": 2, "note": None}


async def test_two_rounds_of_input_requests_resume_one_stream_for_a_handshake_client(base_url: str) -> None:
    answers = Answers({"name": "Ada"}, text="Ride the ferry.")
    async with Client(
        f"{base_url}/mcp", mode="legacy", elicitation_callback=answers.elicit, sampling_callback=answers.sample
    ) as mcp:
        result = await mcp.call_tool("travel_tip", {"city": "Oslo"})
    assert answers.asked == ["What is your name?", "sampling"]
    assert result.structured_content == {"city": "Oslo", "tip": "Ride the ferry.", "traveller": "Ada"}


async def test_progress_sent_before_a_tool_asks_reaches_a_handshake_client_with_the_request(base_url: str) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    answers = Answers({"name": "Ada", "seats": 1})
    async with Client(f"{base_url}/mcp", mode="legacy", elicitation_callback=answers.elicit) as mcp:
        result = await mcp.call_tool("check_in", {"city": "Oslo"}, progress_callback=on_progress)
    # The handler runs again from the top with the answer (as every input round does), so it reports again.
    assert seen == [(1, 2, "checking in")] * 2
    assert result.structured_content == {"city": "Oslo", "traveller": "Ada", "seats": 1, "note": None}


async def test_progress_sent_before_a_tool_asks_follows_the_priming_event_in_a_buffered_reply(wire: Wire) -> None:
    session = await wire.session()
    params = {"name": "check_in", "arguments": {"city": "Oslo"}, "_meta": {"progressToken": "p"}}
    reply = await wire.post({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}, session)
    priming, progress, request = events(reply)
    assert priming["data"] == ""
    assert json.loads(progress["data"])["method"] == "notifications/progress"
    assert json.loads(request["data"])["method"] == "elicitation/create"


def test_a_non_ascii_event_id_or_session_over_http_is_answered_without_a_server_error(base_url: str) -> None:
    get = {"accept": "text/event-stream", "mcp-protocol-version": "2025-11-25"}
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "book_trip", "arguments": {}}}
    with httpx.Client(timeout=10) as http:
        for name in ("last-event-id", "mcp-session-id"):
            hostile = {name: "s1.abc.\xe9\xff".encode("latin-1")}
            assert http.get(f"{base_url}/mcp", headers={**get, **hostile}).status_code == 405
            posted = http.post(f"{base_url}/mcp", json=call, headers={**HEADERS_OVER_HTTP, **hostile})
            assert posted.status_code == 200, posted.text


# --- the buffered endpoint (as on Lambda), request by request ---


class Wire:
    """A 2025-11-25 client's requests, by hand."""

    def __init__(self, endpoint: McpEndpoint) -> None:
        self.endpoint = endpoint

    async def initialize(self, version: str = "2025-11-25", capabilities: dict[str, Any] | None = None) -> HttpReply:
        params = {
            "protocolVersion": version,
            "capabilities": CAPABILITIES if capabilities is None else capabilities,
            "clientInfo": {"name": "by-hand", "version": "1"},
        }
        return await self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}, None)

    async def session(self) -> str:
        return dict((await self.initialize()).headers)["mcp-session-id"]

    async def post(self, message: dict[str, Any], session: str | None) -> HttpReply:
        headers = {**HEADERS, **({"mcp-session-id": session} if session else {})}
        return await self.endpoint.handle("POST", headers, json.dumps(message).encode())

    async def call(self, session: str | None, tool: str = "book_trip", rid: int | str = 7) -> HttpReply:
        params = {"name": tool, "arguments": {"city": "Oslo"}}
        return await self.post({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}, session)

    async def answer(self, session: str | None, request_id: str, result: dict[str, Any]) -> HttpReply:
        return await self.post({"jsonrpc": "2.0", "id": request_id, "result": result}, session)

    async def resume(self, session: str | None, event_id: str) -> HttpReply:
        headers = {"host": HOST, "accept": "text/event-stream", "mcp-protocol-version": "2025-11-25"}
        headers |= {"last-event-id": event_id} | ({"mcp-session-id": session} if session else {})
        return await self.endpoint.handle("GET", headers, b"")


def events(reply: HttpReply) -> list[dict[str, str]]:
    """The reply's server-sent events, each as its fields."""
    assert dict(reply.headers)["content-type"] == "text/event-stream"
    parsed = []
    for block in reply.body.decode().split("\n\n"):
        if block:
            fields = [line.partition(": ") for line in block.split("\n")]
            parsed.append({name: value for name, _, value in fields})
    return parsed


def messages(reply: HttpReply) -> list[dict[str, Any]]:
    return [json.loads(event["data"]) for event in events(reply) if event.get("data")]


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def runs() -> Runs:
    return Runs()


@pytest.fixture
def store(clock: Clock) -> ReadCountingStore:
    return ReadCountingStore(clock=clock)


@pytest.fixture
def wire(clock: Clock, runs: Runs, store: ReadCountingStore) -> Wire:
    settings = trip_settings(resumable_streams=True, request_state_ttl_seconds=60)
    return Wire(trip_endpoint(settings, store=store, observer=runs, clock=clock))


async def test_a_call_that_asks_ends_its_stream_with_a_priming_event_then_the_request(wire: Wire) -> None:
    reply = await wire.call(await wire.session())
    first, request = events(reply)
    assert first["data"] == ""
    assert first["retry"] == "500"
    assert first["id"]
    elicitation = json.loads(request["data"])
    assert elicitation["method"] == "elicitation/create"
    assert elicitation["params"]["message"] == "Who is travelling to Oslo?"
    assert not any("result" in m for m in messages(reply))


async def test_the_answer_is_accepted_and_the_resumed_stream_ends_with_the_calls_response(wire: Wire) -> None:
    session = await wire.session()
    suspended = await wire.call(session, rid=41)
    [request] = messages(suspended)
    assert (await wire.answer(session, request["id"], TRAVELLER)).status == 202
    resumed = await wire.resume(session, events(suspended)[0]["id"])
    [response] = messages(resumed)
    assert response["id"] == 41
    assert response["result"]["structuredContent"] == {"city": "Oslo", "traveller": "Ada", "seats": 2, "note": None}


async def test_a_get_before_the_answer_comes_polls_again_later(wire: Wire) -> None:
    session = await wire.session()
    suspended = await wire.call(session)
    first = await wire.resume(session, events(suspended)[0]["id"])
    [priming] = events(first)
    assert priming["data"] == ""
    assert priming["retry"] == "1000"
    second = await wire.resume(session, priming["id"])
    assert events(second)[0]["retry"] == "2000"


async def test_a_resumed_call_runs_once_and_a_repeated_get_gets_the_same_response(wire: Wire, runs: Runs) -> None:
    session = await wire.session()
    suspended = await wire.call(session)
    [request] = messages(suspended)
    await wire.answer(session, request["id"], TRAVELLER)
    event_id = events(suspended)[0]["id"]
    first = await wire.resume(session, event_id)
    again = await wire.resume(session, event_id)
    assert again.body == first.body
    assert runs.count == 2  # the call that asked, and the one that answered; the repeated GET ran nothing


async def test_another_session_can_neither_answer_nor_resume_a_call(wire: Wire) -> None:
    mine, theirs = await wire.session(), await wire.session()
    suspended = await wire.call(mine)
    [request] = messages(suspended)
    event_id = events(suspended)[0]["id"]
    assert (await wire.answer(theirs, request["id"], TRAVELLER)).status == 202  # accepted, and dropped
    waiting = await wire.resume(mine, event_id)
    assert messages(waiting) == []  # the answer from the other session was not kept
    [refused] = messages(await wire.resume(theirs, event_id))
    assert refused["error"]["code"] == -32600
    assert "another session" in refused["error"]["message"]


async def test_a_get_with_an_event_id_this_server_did_not_issue_is_405(wire: Wire) -> None:
    session = await wire.session()
    suspended = await wire.call(session)
    event_id = events(suspended)[0]["id"]
    body, _, mac = event_id.partition(".")
    for forged in (f"{body}.{mac[:-2]}AA", "1", "", "x" * 5000):
        assert (await wire.resume(session, forged)).status == 405


async def test_a_plain_get_is_still_405_with_resumable_streams_on(wire: Wire) -> None:
    reply = await wire.endpoint.handle("GET", {"host": HOST, "accept": "text/event-stream"}, b"")
    assert reply.status == 405
    assert dict(reply.headers)["allow"] == "POST"


async def test_without_resumable_streams_a_get_with_any_event_id_is_405() -> None:
    endpoint = trip_endpoint(trip_settings())
    reply = await endpoint.handle("GET", {"host": HOST, "last-event-id": "abc.def"}, b"")
    assert reply.status == 405


async def test_a_call_whose_id_is_too_long_for_an_event_id_is_told_input_is_unsupported_not_left_waiting(
    wire: Wire,
) -> None:
    session = await wire.session()
    longest = "r" * (MAX_RESUMABLE_ID_LENGTH - 2)  # as JSON, with its quotes
    resumable = await wire.call(session, rid=longest)
    assert dict(resumable.headers)["content-type"] == "text/event-stream"
    for too_long in (longest + "r", "é" * 40, 10 ** (MAX_RESUMABLE_ID_LENGTH + 1)):  # é is \u00e9 in JSON
        reply = await wire.call(session, rid=too_long)
        result = json.loads(reply.body)["result"]
        assert result["_meta"]["error"]["code"] == "input_unsupported"


async def test_a_forged_session_declares_no_capability(wire: Wire) -> None:
    session = await wire.session()
    prefix, _, mac = session.rpartition(".")
    reply = await wire.call(f"{prefix}.{mac[::-1]}")
    result = json.loads(reply.body)["result"]
    assert result["isError"] is True
    assert result["_meta"]["error"]["code"] == "input_unsupported"


async def test_only_a_2025_11_25_initialize_gets_a_session(wire: Wire) -> None:
    assert "mcp-session-id" in dict((await wire.initialize()).headers)
    assert "mcp-session-id" not in dict((await wire.initialize("2025-06-18")).headers)


async def test_a_session_keeps_only_the_capabilities_input_requests_and_widgets_depend_on(wire: Wire) -> None:
    declared = {
        "elicitation": {"form": {}},
        "roots": {"listChanged": True},
        "experimental": {"x" * 100: {}},
        "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}, "other": {}},
    }
    session = dict((await wire.initialize(capabilities=declared)).headers)["mcp-session-id"]
    streams = wire.endpoint._streams
    assert streams is not None
    kept = streams.session(session)
    assert kept is not None
    assert kept.capabilities == {
        "elicitation": {"form": {}},
        "roots": {"listChanged": True},
        "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}},
    }


async def test_a_call_left_unanswered_past_its_time_ends_with_a_clear_error(wire: Wire, clock: Clock) -> None:
    session = await wire.session()
    suspended = await wire.call(session, rid=3)
    clock.now += 61
    [response] = messages(await wire.resume(session, events(suspended)[0]["id"]))
    assert response["id"] == 3
    assert "call the tool again" in response["error"]["message"]


async def test_an_error_for_an_answer_ends_the_call_with_the_clients_reason(wire: Wire, runs: Runs) -> None:
    session = await wire.session()
    suspended = await wire.call(session, rid=5)
    [request] = messages(suspended)
    error = {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "no forms here"}}
    assert (await wire.post(error, session)).status == 202
    [response] = messages(await wire.resume(session, events(suspended)[0]["id"]))
    assert response["id"] == 5
    assert response["error"]["code"] == -32602
    assert "no forms here" in response["error"]["message"]
    assert runs.count == 1


async def test_an_answer_to_a_request_never_asked_is_dropped(wire: Wire) -> None:
    session = await wire.session()
    suspended = await wire.call(session)
    [request] = messages(suspended)
    stream_id, round_, _ = request["id"].split(".", 2)
    await wire.answer(session, f"{stream_id}.{round_}.not-asked", TRAVELLER)
    await wire.answer(session, f"{stream_id}.9.traveller", TRAVELLER)
    assert messages(await wire.resume(session, events(suspended)[0]["id"])) == []


@pytest.mark.parametrize("answer_id", ["x" * 3000 + ".0.traveller", "...", "a.b", "ab/cd.0.traveller"])
async def test_an_answer_whose_id_names_no_stream_of_ours_is_accepted_and_dropped_unread(
    wire: Wire, store: ReadCountingStore, answer_id: str
) -> None:
    session = await wire.session()
    assert (await wire.answer(session, answer_id, TRAVELLER)).status == 202
    assert store.reads == 0


async def test_the_second_round_of_a_resumed_call_asks_on_the_same_stream(wire: Wire) -> None:
    session = await wire.session()
    suspended = await wire.call(session, tool="travel_tip", rid=9)
    [ask_name] = messages(suspended)
    await wire.answer(session, ask_name["id"], {"action": "accept", "content": {"name": "Ada"}})
    second = await wire.resume(session, events(suspended)[0]["id"])
    [ask_tip] = messages(second)
    assert ask_tip["method"] == "sampling/createMessage"
    assert ask_tip["id"].split(".")[0] == ask_name["id"].split(".")[0]
    tip = {"role": "assistant", "content": {"type": "text", "text": "Ride the ferry."}, "model": "m"}
    await wire.answer(session, ask_tip["id"], tip)
    [response] = messages(await wire.resume(session, events(second)[0]["id"]))
    assert response["id"] == 9
    assert response["result"]["structuredContent"] == {"city": "Oslo", "tip": "Ride the ferry.", "traveller": "Ada"}


async def test_a_client_that_missed_a_rounds_requests_gets_them_again(wire: Wire) -> None:
    session = await wire.session()
    suspended = await wire.call(session, tool="travel_tip")
    [ask_name] = messages(suspended)
    await wire.answer(session, ask_name["id"], {"action": "accept", "content": {"name": "Ada"}})
    second = await wire.resume(session, events(suspended)[0]["id"])
    # The reply with round two's request was lost: the client resumes from round one's event again.
    again = await wire.resume(session, events(suspended)[0]["id"])
    assert messages(again) == messages(second)


HOSTILE_TOKENS = ("s1.abc.é", "é", "Wy.é", "\x00\x7f.\u00ff", "s1." + "a" * 100_000)


@pytest.mark.parametrize("token", HOSTILE_TOKENS)
async def test_a_non_ascii_or_huge_event_id_or_session_is_answered_as_a_stranger_never_with_a_server_error(
    wire: Wire, token: str
) -> None:
    session = await wire.session()
    get = {"host": HOST, "accept": "text/event-stream"}
    assert (await wire.endpoint.handle("GET", {**get, "last-event-id": token}, b"")).status == 405
    assert (await wire.endpoint.handle("GET", {**get, "mcp-session-id": token}, b"")).status == 405
    assert (await wire.resume(token, events(await wire.call(session))[0]["id"])).status == 200  # "another session"
    result = json.loads((await wire.call(token)).body)["result"]
    assert result["_meta"]["error"]["code"] == "input_unsupported"  # as without a session
    assert (await wire.answer(token, "A" * 22 + ".0.traveller", TRAVELLER)).status == 202


@pytest.mark.parametrize(
    "headers",
    [{"host": "evil.example.com:443"}, {"host": HOST, "origin": "https://evil.example.com"}],
)
async def test_a_get_with_an_event_id_this_server_did_not_sign_is_405_whatever_its_host_or_origin(
    wire: Wire, headers: dict[str, str]
) -> None:
    session = await wire.session()
    for forged in ("e30.forged", "1"):
        reply = await wire.endpoint.handle("GET", {**headers, "last-event-id": forged, "mcp-session-id": session}, b"")
        assert reply.status == 405, (forged, reply)


async def test_a_listed_browser_origin_may_resume_a_stream_after_its_preflight(
    clock: Clock, store: ReadCountingStore
) -> None:
    page = "https://app.example.com"
    settings = trip_settings(resumable_streams=True, cors_origins=(page,))
    wire = Wire(trip_endpoint(settings, store=store, clock=clock))
    preflight = {
        "host": HOST,
        "origin": page,
        "access-control-request-method": "GET",
        "access-control-request-headers": "last-event-id, mcp-protocol-version, mcp-session-id",
    }
    allowed = dict((await wire.endpoint.handle("OPTIONS", preflight, b"")).headers)
    assert "GET" in [m.strip() for m in allowed["access-control-allow-methods"].split(",")]
    assert {"last-event-id", "mcp-session-id"} <= {
        h.strip() for h in allowed["access-control-allow-headers"].split(",")
    }
    session = await wire.session()
    suspended = await wire.call(session)
    headers = {"host": HOST, "origin": page, "accept": "text/event-stream", "mcp-session-id": session}
    resumed = await wire.endpoint.handle("GET", {**headers, "last-event-id": events(suspended)[0]["id"]}, b"")
    assert dict(resumed.headers)["access-control-allow-origin"] == page
    assert events(resumed)[0]["retry"] == "1000"


async def test_a_client_holding_the_calls_response_resumes_no_more_and_one_that_lost_it_gets_it_again(
    wire: Wire, store: ReadCountingStore
) -> None:
    session = await wire.session()
    suspended = await wire.call(session, rid=5)
    [request] = messages(suspended)
    error = {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "no forms here"}}
    await wire.post(error, session)
    asked_from = events(suspended)[0]["id"]
    ended = await wire.resume(session, asked_from)
    [response] = messages(ended)
    assert "no forms here" in response["error"]["message"]
    # A client that got the response and still resumes (the TypeScript SDK v1 does after an error) with the id
    # that came with it is told the stream is over, without a read; one whose reply was lost resumes from the
    # id before and gets the response again.
    store.reads = 0
    over = await wire.resume(session, events(ended)[0]["id"])
    assert over.status == 405
    assert store.reads == 0
    assert (await wire.resume(session, asked_from)).body == ended.body


class RacingStore(ReadCountingStore):
    """Holds every read of a kept call until `racers` reads of it have started, once `race()` is called: so many
    GETs have all read the call as waiting before any of them claims it."""

    barrier: threading.Barrier | None = None

    def race(self, racers: int) -> None:
        self.barrier = threading.Barrier(racers, timeout=10)

    def get(self, owner: str, kind: str, doc_id: str) -> Document | None:
        if self.barrier is not None and kind == "stream":
            self.barrier.wait()
        return super().get(owner, kind, doc_id)


async def test_racing_gets_that_all_read_the_answered_call_run_it_once(clock: Clock, runs: Runs) -> None:
    store = RacingStore(clock=clock)
    wire = Wire(trip_endpoint(trip_settings(resumable_streams=True), store=store, observer=runs, clock=clock))
    session = await wire.session()
    suspended = await wire.call(session, rid=8)
    [request] = messages(suspended)
    await wire.answer(session, request["id"], TRAVELLER)
    replies: list[HttpReply] = []

    async def resume() -> None:
        replies.append(await wire.resume(session, events(suspended)[0]["id"]))

    store.race(4)
    async with anyio.create_task_group() as group:
        for _ in range(4):
            group.start_soon(resume)
    assert runs.count == 2  # the call that asked, and one rerun for the four GETs
    # The others poll again, or (a GET slow enough to read the call once it was done) get the same response.
    responses = [m for reply in replies for m in messages(reply)]
    assert {r["result"]["structuredContent"]["traveller"] for r in responses} == {"Ada"}
    assert len({json.dumps(r, sort_keys=True) for r in responses}) == 1
    assert all(reply.status == 200 for reply in replies)


async def test_while_the_key_cannot_be_read_no_resumable_request_gets_a_5xx(wire: Wire) -> None:
    session = await wire.session()
    suspended = await wire.call(session)
    [request] = messages(suspended)
    streams = wire.endpoint._streams
    assert streams is not None

    class Unreadable:
        def sign(self, label: str, text: str) -> str:
            raise SecretUnavailable("arn:aws:secretsmanager:eu-west-1:123456789012:secret:key", "AccessDenied")

        def verify(self, label: str, text: str, mac: str) -> bool:
            return bool(self.sign(label, text))

    streams._signer = Unreadable()
    assert (await wire.resume(session, events(suspended)[0]["id"])).status == 405
    assert (await wire.answer(session, request["id"], TRAVELLER)).status == 202
    result = json.loads((await wire.call(session)).body)["result"]
    assert result["_meta"]["error"]["code"] == "input_unsupported"


async def test_capabilities_declared_at_length_are_kept_by_name_and_still_let_a_tool_ask(wire: Wire) -> None:
    declared = {"elicitation": {"form": {"note": "x" * 4000}}, "sampling": {}}
    session = dict((await wire.initialize(capabilities=declared)).headers)["mcp-session-id"]
    assert len(session) < 512
    streams = wire.endpoint._streams
    assert streams is not None
    kept = streams.session(session)
    assert kept is not None
    assert kept.capabilities == {"elicitation": {}, "sampling": {}}
    [request] = messages(await wire.call(session))
    assert request["method"] == "elicitation/create"
