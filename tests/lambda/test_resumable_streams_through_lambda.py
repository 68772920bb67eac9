"""Resumable streams as a deployment with `-c resumableStreams=on` serves them: every request is an API Gateway v2
event through `widget_mcp.handler.handler`, with the kept call and its answers in DynamoDB (moto). A 2025-11-25 client
that declared elicitation calls the forms app's ask_question (the form as the host's own, since it declared no MCP
Apps): the reply is an event stream that ends after a priming event and the elicitation request; the client POSTs its
answer (202) and resumes with `GET /mcp` and `Last-Event-ID`, which answers the original call. With the flag off, as
by default, every GET /mcp is 405."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from apigw_events import Context, Handler, rpc, v2
from dynamodb_probe import CallLog
from widget_mcp.settings import Settings
from widget_mcp.storage.dynamodb import DynamoDbDocumentStore
from widget_mcp.wiring import build_core

VERSION = "2025-11-25"
FLAT = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "title": "City", "maxLength": 20},
        "nights": {"type": "integer", "title": "Nights", "minimum": 1, "maximum": 30},
    },
    "required": ["city", "nights"],
}
ANSWER = {"city": "Tromsø", "nights": 3}
ALICE = {"openai/subject": "alice-resumes"}


@dataclass(frozen=True)
class Event:
    """One server-sent event: its fields as the EventSource parser reads them."""

    id: str | None
    retry: int | None
    data: str


def _events(body: str) -> list[Event]:
    events = []
    for block in body.split("\n\n"):
        if not block.strip():
            continue
        fields: dict[str, list[str]] = {}
        for line in block.split("\n"):
            name, _, value = line.partition(":")
            fields.setdefault(name, []).append(value.removeprefix(" "))
        retry = fields.get("retry", [None])[-1]
        events.append(Event(fields.get("id", [None])[-1], int(retry) if retry else None, "\n".join(fields["data"])))
    return events


def _headers(reply: dict[str, Any]) -> dict[str, str]:
    return {name.lower(): value for name, value in reply["headers"].items()}


def _get(handler: Handler, headers: dict[str, str]) -> dict[str, Any]:
    """GET /mcp as API Gateway delivers an SSE client's resumption: no body, no content type."""
    event = v2(method="GET", headers={"accept": "text/event-stream", **headers})
    del event["headers"]["content-type"]
    return handler(event, Context())


@pytest.fixture
def table_calls(handler: Handler, monkeypatch: pytest.MonkeyPatch) -> CallLog:
    """The real handler serving a deployment's settings (RESUMABLE_STREAMS=true, the stack's default), on moto;
    every DynamoDB request it sends is logged."""
    import widget_mcp.handler as module

    core = build_core(Settings(resumable_streams="true"))  # type: ignore[arg-type]
    monkeypatch.setattr(module, "core", core)
    assert isinstance(core.store, DynamoDbDocumentStore)
    return CallLog(core.store.client)


@pytest.fixture
def resumable(handler: Handler, table_calls: CallLog) -> Handler:
    return handler


class Client:
    """A 2025-11-25 client's requests, as events: the session header once initialize gave one."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.session: str | None = None

    def post(self, message: dict[str, Any]) -> dict[str, Any]:
        headers = {"mcp-protocol-version": VERSION}
        if self.session is not None:
            headers["mcp-session-id"] = self.session
        return self.handler(v2(message, headers=headers), Context())

    def resume(self, last_event_id: str) -> dict[str, Any]:
        assert self.session is not None
        return _get(
            self.handler,
            {"last-event-id": last_event_id, "mcp-session-id": self.session, "mcp-protocol-version": VERSION},
        )

    def initialize(self) -> dict[str, Any]:
        params = {
            "protocolVersion": VERSION,
            "capabilities": {"elicitation": {"form": {}}},
            "clientInfo": {"name": "resuming-client", "version": "1.0"},
        }
        reply = self.post(rpc("initialize", params, id=0))
        assert reply["statusCode"] == 200, reply["body"]
        self.session = _headers(reply).get("mcp-session-id")
        return reply


def _stream(reply: dict[str, Any]) -> list[Event]:
    assert reply["statusCode"] == 200, reply["body"]
    assert _headers(reply)["content-type"].startswith("text/event-stream")
    return _events(reply["body"])


def test_a_call_that_asks_ends_its_stream_and_resumes_with_get_once_answered_through_lambda(
    resumable: Handler,
) -> None:
    client = Client(resumable)
    initialized = client.initialize()
    assert json.loads(initialized["body"])["result"]["protocolVersion"] == VERSION
    assert client.session, "initialize at 2025-11-25 with resumable streams on gives an Mcp-Session-Id"
    assert client.post({"jsonrpc": "2.0", "method": "notifications/initialized"})["statusCode"] == 202

    call = rpc("tools/call", {"name": "ask_question", "arguments": {"question": FLAT}, "_meta": ALICE}, id=7)
    priming, request_event = _stream(client.post(call))
    assert priming.id
    assert priming.retry is not None
    assert priming.retry > 0
    request = json.loads(request_event.data)
    assert request["method"] == "elicitation/create"
    assert request["params"]["requestedSchema"]["properties"] == FLAT["properties"]

    # Resumed before the answer is in: only another priming event, with a longer wait.
    (waiting,) = _stream(client.resume(priming.id))
    assert waiting.id
    assert waiting.retry is not None
    assert waiting.retry > priming.retry
    assert waiting.data == ""

    answer = {"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept", "content": ANSWER}}
    posted = client.post(answer)
    assert (posted["statusCode"], posted["body"]) == (202, "")

    resumed = client.resume(waiting.id)
    *_, final = _stream(resumed)
    response = json.loads(final.data)
    assert response["id"] == 7
    result = response["result"]
    assert result.get("isError") is not True, result
    assert result["_meta"]["dgui_response"]["data"] == ANSWER
    form_id = result["structuredContent"]["formId"]

    again = client.resume(waiting.id)  # a client whose reply was lost gets the same one
    assert again["body"] == resumed["body"]

    # The rerun call kept the original call's _meta: the form and its answer are alice's, in DynamoDB.
    get = rpc("tools/call", {"name": "get_form_response", "arguments": {"formId": form_id}, "_meta": ALICE}, id=8)
    stored = client.post(get)
    body = stored["body"]
    found = (
        json.loads(_events(body)[-1].data)
        if _headers(stored)["content-type"].startswith("text/event-stream")
        else json.loads(body)
    )
    assert found["result"]["structuredContent"]["type"] == "dgui_response"
    assert found["result"]["structuredContent"]["data"] == ANSWER


def test_a_waiting_poll_reads_the_table_at_most_twice_and_writes_nothing_and_an_answer_is_counted_then_kept(
    resumable: Handler, table_calls: CallLog
) -> None:
    client = Client(resumable)
    client.initialize()
    call = rpc("tools/call", {"name": "ask_question", "arguments": {"question": FLAT}, "_meta": ALICE}, id=9)
    priming, request_event = _stream(client.post(call))

    table_calls.clear()
    (waiting,) = _stream(client.resume(priming.id or ""))
    assert waiting.data == ""
    assert [name for name, _ in table_calls.calls] == ["GetItem", "GetItem"]  # the kept call, then its answer

    table_calls.clear()
    answer = {"jsonrpc": "2.0", "id": json.loads(request_event.data)["id"], "result": {"action": "decline"}}
    assert client.post(answer)["statusCode"] == 202
    # The caller's rate limit first, then the kept call, then the answer.
    assert [name for name, _ in table_calls.calls] == ["UpdateItem", "GetItem", "PutItem"]

    table_calls.clear()
    forged = _get(resumable, {"last-event-id": f"{waiting.id}x", "mcp-session-id": client.session or ""})
    assert forged["statusCode"] == 405
    assert table_calls.calls == []  # an event id this server did not sign costs no read


def test_with_resumable_streams_on_a_get_that_resumes_no_stream_of_this_server_is_still_405(
    resumable: Handler,
) -> None:
    client = Client(resumable)
    client.initialize()
    assert client.session
    for headers in ({}, {"last-event-id": "0"}, {"last-event-id": "e30.forged", "mcp-session-id": client.session}):
        reply = _get(resumable, headers)
        assert reply["statusCode"] == 405, (headers, reply)
        assert _headers(reply)["allow"] == "POST"


def _issued_elsewhere(handler: Handler, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """A session and a priming event id a deployment with resumable streams on really issued, for a call that asks."""
    import widget_mcp.handler as module

    with monkeypatch.context() as patched:
        patched.setattr(module, "core", build_core(Settings(resumable_streams="true")))  # type: ignore[arg-type]
        client = Client(handler)
        client.initialize()
        call = rpc("tools/call", {"name": "ask_question", "arguments": {"question": FLAT}, "_meta": ALICE}, id=3)
        priming, _ = _stream(client.post(call))
    assert client.session
    assert priming.id
    return client.session, priming.id


def test_with_resumable_streams_off_every_get_is_405_whatever_last_event_id_it_carries(
    handler: Handler, monkeypatch: pytest.MonkeyPatch
) -> None:
    import widget_mcp.handler as module

    session, issued = _issued_elsewhere(handler, monkeypatch)
    # As a deployment with `-c resumableStreams=off` (the stack then sets RESUMABLE_STREAMS=false).
    monkeypatch.setattr(module, "core", build_core(Settings(resumable_streams="false")))  # type: ignore[arg-type]
    for last_event_id in (None, issued, "0", "e30.forged", "x" * 2000):
        headers = {"mcp-session-id": session, "mcp-protocol-version": VERSION}
        if last_event_id is not None:
            headers["last-event-id"] = last_event_id
        reply = _get(handler, headers)
        assert reply["statusCode"] == 405, (last_event_id, reply)
        assert _headers(reply)["allow"] == "POST"


def test_a_non_ascii_or_huge_event_id_or_session_header_through_lambda_is_never_a_server_error(
    resumable: Handler, table_calls: CallLog
) -> None:
    client = Client(resumable)
    client.initialize()
    assert client.session
    body, _, mac = client.session.rpartition(".")
    table_calls.clear()
    for hostile in (f"{body}.{mac[:-1]}é", "Wy.ü", "s1." + "a" * 100_000):
        for headers in ({"last-event-id": hostile}, {"mcp-session-id": hostile}):
            reply = _get(resumable, {"mcp-protocol-version": VERSION, **headers})
            assert reply["statusCode"] == 405, (headers, reply)
        assert table_calls.calls == []  # a GET naming nothing this server signed costs no read
        call = rpc("tools/call", {"name": "ask_question", "arguments": {"question": FLAT}}, id=4)
        posted = resumable(v2(call, headers={"mcp-protocol-version": VERSION, "mcp-session-id": hostile}), Context())
        assert posted["statusCode"] == 200, posted  # served as a call without a session
        table_calls.clear()
