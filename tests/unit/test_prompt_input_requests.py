"""Input requests from a prompt (`PromptCall.ask`): the same rounds, signed requestState and refusals as a tool's."""

from __future__ import annotations

from typing import Any

import pytest
from library_app import book as library
from pydantic import BaseModel, Field
from widget_mcp.server import build_runtime
from widget_mcp.toolkit import (
    CallerClient,
    DeclarationError,
    Elicitation,
    MissingClientCapability,
    PromptCall,
    PromptInputUnsupported,
    PromptMessage,
    ToolBook,
    ToolCall,
)
from widget_mcp.toolkit.inputs import InvalidInputResponse
from widget_mcp.toolkit.request_state import InvalidRequestState
from widget_mcp.toolkit.runtime import ToolRuntime

from tests.trip_book import book as trips
from tests.trip_book import trip_settings

MODERN = CallerClient("2026-07-28", True, {"elicitation": {}})
HANDSHAKE = CallerClient("2025-11-25", False, None)
ALICE = {"openai/subject": "alice"}
SAGA = {"genre": "saga"}
CALM = {"reader": {"action": "accept", "content": {"mood": "calm"}}}


class Topic(BaseModel):
    topic: str = Field(max_length=40)


def runtime() -> ToolRuntime:
    return build_runtime(trip_settings(), [trips, library])


async def first_round(rt: ToolRuntime, arguments: dict[str, str] = SAGA) -> dict[str, Any]:
    return await rt.get_prompt("library_suggest", arguments, ALICE, client=MODERN)


def test_a_prompt_takes_its_arguments_and_its_call_by_annotation_in_either_order() -> None:
    prompts = ToolBook()

    @prompts.prompt(name="both", title="Both", description="Arguments, then the call.")
    def both(args: Topic, call: PromptCall) -> list[PromptMessage]:
        return []

    @prompts.prompt(name="swapped", title="Swapped", description="The call, then arguments.")
    def swapped(call: PromptCall, args: Topic) -> list[PromptMessage]:
        return []

    @prompts.prompt(name="call_only", title="Call", description="Only the call.")
    async def call_only(call: PromptCall) -> list[PromptMessage]:
        return []

    assert [prompts.prompts[n].parameters for n in ("both", "swapped", "call_only")] == [
        ("args", "call"),
        ("call", "args"),
        ("call",),
    ]
    assert prompts.prompts["swapped"].describe()["arguments"] == [{"name": "topic", "required": True}]


def tool_call_prompt(call: ToolCall) -> list[PromptMessage]:
    return []


def two_calls(first: PromptCall, second: PromptCall) -> list[PromptMessage]:
    return []


def unannotated(call) -> list[PromptMessage]:  # type: ignore[no-untyped-def]
    return []


@pytest.mark.parametrize("handler", [tool_call_prompt, two_calls, unannotated])
def test_a_prompt_parameter_that_is_neither_its_arguments_nor_a_prompt_call_is_refused(handler: Any) -> None:
    with pytest.raises(DeclarationError, match="PromptCall"):
        ToolBook().prompt(name="odd", title="Odd", description="An odd signature.")(handler)


async def test_a_prompt_asks_then_completes_with_the_answer_in_the_next_round() -> None:
    rt = runtime()
    first = await first_round(rt)
    assert first["resultType"] == "input_required"
    request = first["inputRequests"]["reader"]
    assert request["method"] == "elicitation/create"
    assert request["params"]["message"] == "Before I suggest a saga book: how do you feel?"
    assert request["params"]["requestedSchema"]["required"] == ["mood"]
    done = await rt.get_prompt(
        "library_suggest", SAGA, ALICE, client=MODERN, input_responses=CALM, request_state=first["requestState"]
    )
    assert done["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "Suggest a saga book for a calm reader."}}
    ]


@pytest.mark.parametrize(
    ("name", "arguments", "meta", "reason"),
    [
        ("library_suggest", {"genre": "satire"}, ALICE, "other_call"),  # other arguments
        ("library_suggest", SAGA, {"openai/subject": "bob"}, "other_call"),  # another user
        ("library_suggest", SAGA, None, "other_call"),  # no user at all
    ],
)
async def test_a_prompts_state_sent_with_another_request_is_refused_before_the_prompt_runs(
    name: str, arguments: dict[str, str], meta: dict[str, str] | None, reason: str
) -> None:
    rt = runtime()
    first = await first_round(rt)
    with pytest.raises(InvalidRequestState) as refused:
        await rt.get_prompt(
            name, arguments, meta, client=MODERN, input_responses=CALM, request_state=first["requestState"]
        )
    assert (refused.value.code, refused.value.reason) == (-32602, reason)


async def test_a_state_crosses_neither_from_a_tool_to_a_prompt_nor_back() -> None:
    rt = runtime()
    prompt_state = (await first_round(rt))["requestState"]
    tool_state = (await rt.call("book_trip", {"city": "Oslo"}, ALICE, client=MODERN))["requestState"]
    with pytest.raises(InvalidRequestState, match="different call"):
        await rt.get_prompt("library_suggest", SAGA, ALICE, client=MODERN, request_state=tool_state)
    with pytest.raises(InvalidRequestState, match="different call"):
        await rt.call("book_trip", {"city": "Oslo"}, ALICE, client=MODERN, request_state=prompt_state)


async def test_an_altered_or_foreign_prompt_state_is_refused_as_tampered() -> None:
    state = (await first_round(runtime()))["requestState"]
    other = build_runtime(trip_settings(request_state_secret="t" * 40), [trips, library])
    altered = state[:-2] + ("AA" if not state.endswith("AA") else "BB")
    for rt, token in ((other, state), (runtime(), altered)):
        with pytest.raises(InvalidRequestState) as refused:
            await rt.get_prompt("library_suggest", SAGA, ALICE, client=MODERN, request_state=token)
        assert refused.value.reason == "tampered"


async def test_an_answer_that_does_not_fill_the_prompts_form_is_refused_with_its_key() -> None:
    rt = runtime()
    first = await first_round(rt)
    wrong = {"reader": {"action": "accept", "content": {"mood": 3}}}
    with pytest.raises(InvalidInputResponse, match="'reader'") as refused:
        await rt.get_prompt(
            "library_suggest", SAGA, ALICE, client=MODERN, input_responses=wrong, request_state=first["requestState"]
        )
    assert refused.value.code == -32602


ASKS = Elicitation("Which topic?", Topic)


def always_asking_runtime() -> ToolRuntime:
    prompts = ToolBook()

    @prompts.prompt(name="asks", title="Asks", description="Asks without checking whether the client can answer.")
    def asks(call: PromptCall) -> list[PromptMessage]:
        return [PromptMessage("user", str(call.ask(ASKS, key="topic").content))]

    return build_runtime(trip_settings(), [prompts])


async def test_a_prompt_that_asks_a_handshake_client_is_refused_with_a_protocol_error() -> None:
    with pytest.raises(PromptInputUnsupported) as refused:
        await always_asking_runtime().get_prompt("asks", None, None, client=HANDSHAKE)
    assert refused.value.code == -32600
    assert "2026-07-28" in refused.value.message


async def test_a_prompt_that_asks_for_an_undeclared_capability_names_it() -> None:
    with pytest.raises(MissingClientCapability) as refused:
        await always_asking_runtime().get_prompt("asks", None, None, client=CallerClient("2026-07-28", True, {}))
    assert (refused.value.code, refused.value.data) == (-32021, {"requiredCapabilities": {"elicitation": {}}})


async def test_a_prompt_that_checks_can_ask_serves_a_client_that_cannot_answer() -> None:
    got = await runtime().get_prompt("library_suggest", SAGA, None, client=HANDSHAKE)
    assert got["messages"][0]["content"]["text"] == "Suggest a saga book."
