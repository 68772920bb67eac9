"""Input requests (`ToolCall.ask`), their signed requestState, and a handler's progress and log messages."""

from __future__ import annotations

from typing import Any

import pytest
from readme_snippets import run_python_section
from widget_mcp.secrets import SecretUnavailable
from widget_mcp.server import build_runtime
from widget_mcp.toolkit import (
    CallerClient,
    Elicitation,
    Elicited,
    InputRequired,
    InputUnsupported,
    ListRoots,
    MissingClientCapability,
    Principal,
    Roots,
    Sampled,
    Sampling,
    ToolBook,
    ToolCall,
)
from widget_mcp.toolkit.inputs import InvalidInputResponse, form_problem
from widget_mcp.toolkit.request_state import InvalidRequestState, RequestStates

from tests.trip_book import book, trip_settings

NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
MODERN = CallerClient("2026-07-28", True, {"elicitation": {}, "sampling": {}, "roots": {}})
ALICE = Principal("openai", "alice")


def call_with(answers: dict[str, Any] | None = None, client: CallerClient = MODERN, **meta: Any) -> ToolCall:
    return ToolCall(tool="t", principal=ALICE, request_meta=meta, client=client, answers=answers or {})


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_a_sealed_state_opens_for_the_same_call_with_its_answers() -> None:
    states = RequestStates(lambda: b"k" * 32, ttl_seconds=60)
    token = states.seal("book_trip", {"city": "Oslo"}, "openai:alice", {"who": {"action": "accept"}})
    assert states.open(token, "book_trip", {"city": "Oslo"}, "openai:alice") == {"who": {"action": "accept"}}


@pytest.mark.parametrize(
    "tamper",
    [
        lambda t: t + "-TAMPERED",
        lambda t: t[:-2] + ("AA" if not t.endswith("AA") else "BB"),
        lambda t: t.replace("v1.", "v2."),
        lambda t: "v1.e30.AAAA",
        lambda t: "not a state",
    ],
)
def test_an_altered_state_is_refused_as_tampered(tamper: Any) -> None:
    states = RequestStates(lambda: b"k" * 32, ttl_seconds=60)
    token = states.seal("book_trip", {"city": "Oslo"}, "openai:alice", {})
    with pytest.raises(InvalidRequestState) as refused:
        states.open(tamper(token), "book_trip", {"city": "Oslo"}, "openai:alice")
    assert refused.value.reason == "tampered"
    assert refused.value.code == -32602
    assert "start over" in refused.value.message


def test_a_state_signed_with_another_key_is_refused_as_tampered() -> None:
    token = RequestStates(lambda: b"a" * 32, ttl_seconds=60).seal("t", {}, "p", {})
    with pytest.raises(InvalidRequestState, match="not issued by this server"):
        RequestStates(lambda: b"b" * 32, ttl_seconds=60).open(token, "t", {}, "p")


def test_a_state_past_its_expiry_is_refused_as_expired() -> None:
    clock = Clock()
    states = RequestStates(lambda: b"k" * 32, ttl_seconds=60, clock=clock)
    token = states.seal("t", {}, "p", {})
    clock.now += 59
    assert states.open(token, "t", {}, "p") == {}
    clock.now += 1
    with pytest.raises(InvalidRequestState) as refused:
        states.open(token, "t", {}, "p")
    assert refused.value.reason == "expired"


@pytest.mark.parametrize(
    ("tool", "arguments", "principal"),
    [
        ("other_tool", {"city": "Oslo"}, "openai:alice"),
        ("t", {"city": "Rome"}, "openai:alice"),
        ("t", {"city": "Oslo"}, "openai:bob"),
    ],
)
def test_a_state_replayed_on_another_call_is_refused(tool: str, arguments: dict[str, str], principal: str) -> None:
    states = RequestStates(lambda: b"k" * 32, ttl_seconds=60)
    token = states.seal("t", {"city": "Oslo"}, "openai:alice", {})
    with pytest.raises(InvalidRequestState) as refused:
        states.open(token, tool, arguments, principal)
    assert refused.value.reason == "other_call"


def test_the_key_is_fetched_once_on_first_use() -> None:
    fetched: list[int] = []

    def key() -> bytes:
        fetched.append(1)
        return b"k" * 32

    states = RequestStates(key, ttl_seconds=60)
    assert fetched == []
    states.open(states.seal("t", {}, "p", {}), "t", {}, "p")
    assert fetched == [1]


def test_a_state_checked_while_the_key_cannot_be_read_is_the_keys_failure_not_a_tampered_state() -> None:
    token = RequestStates(lambda: b"k" * 32, ttl_seconds=60).seal("t", {}, "p", {})

    def unreadable() -> bytes:
        raise SecretUnavailable("arn:aws:ssm:eu-west-1:123456789012:parameter/key", "could not be read")

    # The endpoint answers SecretUnavailable with 503 and Retry-After: the client's state was fine.
    with pytest.raises(SecretUnavailable):
        RequestStates(unreadable, ttl_seconds=60).open(token, "t", {}, "p")


def test_asking_without_an_answer_ends_the_round_with_the_request() -> None:
    with pytest.raises(InputRequired) as needed:
        call_with().ask(Elicitation("Name?", NAME_FORM), key="name")
    assert {k: r.wire() for k, r in needed.value.requests.items()} == {
        "name": {"method": "elicitation/create", "params": {"message": "Name?", "requestedSchema": NAME_FORM}}
    }


def test_each_kind_of_answer_comes_back_typed() -> None:
    call = call_with(
        {
            "name": {"action": "accept", "content": {"name": "Ada"}},
            "tip": {"role": "assistant", "content": {"type": "text", "text": "Go"}, "model": "m"},
            "roots": {"roots": [{"uri": "file:///w", "name": "w"}]},
        }
    )
    assert call.ask(Elicitation("Name?", NAME_FORM), key="name") == Elicited("accept", {"name": "Ada"})
    assert call.ask(Sampling("Tip?"), key="tip") == Sampled("Go", "m", None)
    roots = call.ask(ListRoots(), key="roots")
    assert isinstance(roots, Roots)
    assert [(r.uri, r.name) for r in roots.roots] == [("file:///w", "w")]
    assert set(call.used_answers) == {"name", "tip", "roots"}


def test_a_request_without_a_key_gets_the_same_key_every_round() -> None:
    request = Elicitation("Name?", NAME_FORM)
    keys = []
    for _ in range(2):
        with pytest.raises(InputRequired) as needed:
            call_with().ask(request)
        keys.append(next(iter(needed.value.requests)))
    assert keys[0] == keys[1]
    assert call_with({keys[0]: {"action": "decline"}}).ask(request) == Elicited("decline", {})


def test_ask_all_asks_for_every_missing_answer_in_one_round() -> None:
    call = call_with({"name": {"action": "accept", "content": {"name": "Ada"}}})
    with pytest.raises(InputRequired) as needed:
        call.ask_all({"name": Elicitation("Name?", NAME_FORM), "tip": Sampling("Tip?"), "roots": ListRoots()})
    assert list(needed.value.requests) == ["tip", "roots"]


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        (12345, "must be an object"),
        ({"action": "maybe"}, "needs action accept, decline or cancel"),
        ({"action": "accept", "content": {}}, "'name' is required"),
        ({"action": "accept", "content": {"name": 3}}, "'name' must be of type string"),
        ({"role": "assistant", "content": {"type": "text", "text": "x"}}, "answers an elicitation"),
    ],
)
def test_an_answer_that_does_not_answer_the_request_is_refused_with_its_key(answer: Any, problem: str) -> None:
    with pytest.raises(InvalidInputResponse, match=problem) as refused:
        call_with({"name": answer}).ask(Elicitation("Name?", NAME_FORM), key="name")
    assert refused.value.key == "name"
    assert refused.value.code == -32602


def test_a_form_answer_is_checked_for_types_and_enums() -> None:
    schema = {
        "type": "object",
        "properties": {
            "age": {"type": "integer"},
            "ok": {"type": "boolean"},
            "size": {"type": "string", "enum": ["s", "m"]},
        },
    }
    assert form_problem(schema, {"age": 3, "ok": True, "size": "m"}) is None
    assert form_problem(schema, {"age": True}) == "'age' must be of type integer"
    assert form_problem(schema, {"ok": 1}) == "'ok' must be of type boolean"
    assert form_problem(schema, {"size": "xl"}) == "'size' must be one of ['s', 'm']"


def test_a_client_on_the_handshake_protocol_gets_an_error_result_not_a_request() -> None:
    with pytest.raises(InputUnsupported, match="MCP 2026-07-28"):
        call_with(client=CallerClient("2025-11-25", False, None)).ask(Elicitation("Name?", NAME_FORM))


def test_asking_for_a_capability_the_client_did_not_declare_names_it() -> None:
    client = CallerClient("2026-07-28", True, {"elicitation": {}})
    call = call_with(client=client)
    assert call.can_ask(Elicitation("Name?", NAME_FORM))
    assert not call.can_ask(Sampling("Tip?"))
    with pytest.raises(MissingClientCapability) as refused:
        call.ask(Sampling("Tip?"))
    assert refused.value.code == -32021
    assert refused.value.data == {"requiredCapabilities": {"sampling": {}}}


def test_the_mcp_apps_extension_is_read_from_the_declared_capabilities() -> None:
    assert CallerClient("2026-07-28", True, {"extensions": {"io.modelcontextprotocol/ui": {}}}).shows_apps
    assert not CallerClient("2026-07-28", True, {"elicitation": {}}).shows_apps
    assert not CallerClient().shows_apps


def sent(call: ToolCall) -> list[tuple[str, dict[str, Any]]]:
    messages: list[tuple[str, dict[str, Any]]] = []
    call.notify = lambda method, params: messages.append((method, params))
    return messages


def test_progress_is_sent_only_for_a_request_with_a_progress_token() -> None:
    silent = call_with()
    quiet = sent(silent)
    silent.progress(1, 2)
    assert quiet == []
    call = call_with(progressToken="p-1")
    messages = sent(call)
    call.progress(1, 2, "half")
    call.progress(2)
    assert messages == [
        ("notifications/progress", {"progressToken": "p-1", "progress": 1, "total": 2, "message": "half"}),
        ("notifications/progress", {"progressToken": "p-1", "progress": 2}),
    ]


def test_log_messages_need_a_log_level_on_the_stateless_protocol_and_respect_it() -> None:
    unasked = call_with()
    none = sent(unasked)
    unasked.log("error", "boom")
    assert none == []
    call = call_with(**{"io.modelcontextprotocol/logLevel": "warning"})
    messages = sent(call)
    call.log("info", "quiet")
    call.log("error", "loud", logger="trip")
    assert messages == [("notifications/message", {"level": "error", "data": "loud", "logger": "trip"})]


def test_a_handshake_client_gets_every_log_level() -> None:
    call = call_with(client=CallerClient("2025-11-25", False, None))
    messages = sent(call)
    call.log("debug", "detail")
    assert messages == [("notifications/message", {"level": "debug", "data": "detail"})]


async def test_the_runtime_answers_input_required_then_completes_with_the_answer() -> None:
    runtime = build_runtime(trip_settings(), [book])
    first = await runtime.call("book_trip", {"city": "Oslo"}, None, client=MODERN)
    assert first["resultType"] == "input_required"
    [(key, request)] = first["inputRequests"].items()
    assert request["method"] == "elicitation/create"
    assert request["params"]["requestedSchema"]["required"] == ["name"]
    answer = {key: {"action": "accept", "content": {"name": "Ada", "seats": 2}}}
    done = await runtime.call(
        "book_trip", {"city": "Oslo"}, None, client=MODERN, input_responses=answer, request_state=first["requestState"]
    )
    assert done["structuredContent"] == {"city": "Oslo", "traveller": "Ada", "seats": 2, "note": None}


async def test_a_later_round_keeps_earlier_answers_in_its_new_state() -> None:
    runtime = build_runtime(trip_settings(), [book])
    first = await runtime.call("travel_tip", {"city": "Oslo"}, None, client=MODERN)
    second = await runtime.call(
        "travel_tip",
        {"city": "Oslo"},
        None,
        client=MODERN,
        input_responses={"name": {"action": "accept", "content": {"name": "Ada"}}},
        request_state=first["requestState"],
    )
    assert list(second["inputRequests"]) == ["tip"]
    assert second["requestState"] != first["requestState"]
    done = await runtime.call(
        "travel_tip",
        {"city": "Oslo"},
        None,
        client=MODERN,
        input_responses={"tip": {"role": "assistant", "content": {"type": "text", "text": "Walk."}}},
        request_state=second["requestState"],
    )
    assert done["structuredContent"] == {"city": "Oslo", "tip": "Walk.", "traveller": "Ada"}


async def test_the_runtime_refuses_a_state_before_the_handler_runs() -> None:
    runtime = build_runtime(trip_settings(), [book])
    first = await runtime.call("book_trip", {"city": "Oslo"}, None, client=MODERN)
    with pytest.raises(InvalidRequestState):
        await runtime.call("book_trip", {"city": "Rome"}, None, client=MODERN, request_state=first["requestState"])


async def test_a_state_from_a_server_with_another_secret_is_refused() -> None:
    first = await build_runtime(trip_settings(), [book]).call("book_trip", {"city": "Oslo"}, None, client=MODERN)
    other = build_runtime(trip_settings(request_state_secret="t" * 40), [book])
    with pytest.raises(InvalidRequestState, match="not issued by this server"):
        await other.call("book_trip", {"city": "Oslo"}, None, client=MODERN, request_state=first["requestState"])


def readme_book() -> ToolBook:
    book: ToolBook = run_python_section("Ask the client mid-call: input requests, progress and logging")["book"]
    return book


async def test_the_readme_example_asks_then_books_with_the_answer_and_reports_progress() -> None:
    runtime = build_runtime(trip_settings(), [readme_book()])
    first = await runtime.call("trip_book", {"city": "Oslo"}, None, client=MODERN)
    assert first["inputRequests"]["traveller"]["params"]["message"] == "Who is travelling to Oslo?"
    answer = {"traveller": {"action": "accept", "content": {"name": "Ada", "seats": 2}}}
    done = await runtime.call(
        "trip_book", {"city": "Oslo"}, None, client=MODERN, input_responses=answer, request_state=first["requestState"]
    )
    assert done["structuredContent"] == {"city": "Oslo", "traveller": "Ada", "seats": 2}
    sent: list[str] = []
    counted = await runtime.call(
        "trip_count", {"steps": 1}, {"progressToken": 1}, client=MODERN, notify=lambda method, _: sent.append(method)
    )
    assert counted["structuredContent"] == {"steps": 1}
    assert sent == ["notifications/progress"]


async def test_the_readme_prompt_asks_for_a_budget_then_plans_within_it() -> None:
    runtime = build_runtime(trip_settings(), [readme_book()])
    first = await runtime.get_prompt("trip_plan", {"city": "Oslo"}, None, client=MODERN)
    assert first["inputRequests"]["budget"]["params"]["message"] == "What is your budget for Oslo?"
    answer = {"budget": {"action": "accept", "content": {"euros": 900}}}
    done = await runtime.get_prompt(
        "trip_plan", {"city": "Oslo"}, None, client=MODERN, input_responses=answer, request_state=first["requestState"]
    )
    handshake = await runtime.get_prompt("trip_plan", {"city": "Oslo"}, None, client=CallerClient("2025-11-25"))
    assert done["messages"][0]["content"]["text"] == "Plan a trip to Oslo within 900 euros."
    assert handshake["messages"][0]["content"]["text"] == "Plan a trip to Oslo."
