"""The DGUI form tools through the official MCP client: the seed's flight booking end to end, bad schemas and
bad answers, isolation, multi-step forms; on the in-memory store and on DynamoDB (moto)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from form_keys import KEYS, keep_key, keyed
from mcp import Client
from mcp_types import CallToolResult
from moto import mock_aws
from seed_forms import FLIGHT, FLIGHT_UI
from tool_results import assert_conforms, error_of, output_schema, structured
from widget_mcp.apps.forms.answer_keys import ANSWER_KEY_META
from widget_mcp.server import build_server
from widget_mcp.settings import Settings
from widget_mcp.storage.documents import DocumentStore
from widget_mcp.storage.dynamodb import DynamoDbDocumentStore
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.storage.table import create_state_table
from widget_mcp.wiring import Core, build_core

# ChatGPT's calls: a user and its locale, which says the host shows widgets (toolkit/client_surface.py).
ALICE = {"openai/subject": "alice", "openai/locale": "en-US"}
BOB = {"openai/subject": "bob", "openai/locale": "en-US"}
ANSWER = {"destinationCity": "Tokyo", "departureDate": "2025-12-25", "returnDate": "2026-01-10"}


@pytest.fixture(params=["memory", "dynamodb"])
def store(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[DocumentStore]:
    if request.param == "memory":
        yield InMemoryDocumentStore()
        return
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB"):
        monkeypatch.delenv(name, raising=False)
    with mock_aws():
        client = boto3.client("dynamodb", region_name="eu-west-1", aws_access_key_id="t", aws_secret_access_key="t")
        create_state_table(client, "forms-state")
        yield DynamoDbDocumentStore(client, "forms-state")


@pytest.fixture
def forms_core(settings: Settings, store: DocumentStore) -> Core:
    return build_core(settings, store=store)


@pytest.fixture
def client(forms_core: Core) -> Client:
    return Client(build_server(forms_core.runtime), mode="legacy")


async def ask(client: Client, meta: dict[str, str] = ALICE, **args: Any) -> CallToolResult:
    return keep_key(await client.call_tool("ask_question", args, meta=meta))


async def test_the_seed_flight_booking_goes_from_question_to_a_stored_answer(client: Client, forms_core: Core) -> None:
    async with client:
        asked = await ask(
            client,
            question=json.dumps(FLIGHT),
            uiSchema=json.dumps(FLIGHT_UI),
            title="Book a Flight to Japan",
            description="Please provide the details for your flight booking.",
            metadata={"agent_context": "flight_booking"},
        )
        form_id = structured(asked)["formId"]
        pending = await client.call_tool("get_form_response", {"formId": form_id}, meta=ALICE)
        missing = await client.call_tool(
            "submit_form", keyed({"formId": form_id, "data": {"destinationCity": "Tokyo"}}), meta=ALICE
        )
        still_pending = await client.call_tool("get_form_response", {"formId": form_id}, meta=ALICE)
        answered = await client.call_tool("submit_form", keyed({"formId": form_id, "data": ANSWER}), meta=ALICE)
        again = await client.call_tool("submit_form", keyed({"formId": form_id, "data": ANSWER}), meta=ALICE)
        changed = await client.call_tool(
            "submit_form", keyed({"formId": form_id, "data": {**ANSWER, "destinationCity": "Osaka"}}), meta=ALICE
        )
        response = await client.call_tool("get_form_response", {"formId": form_id}, meta=ALICE)
        submit_schema = await output_schema(client, "submit_form")

    assert structured(asked) == {
        "type": "dgui_form",
        "formId": form_id,
        "title": "Book a Flight to Japan",
        "description": "Please provide the details for your flight booking.",
        "schema": FLIGHT,
        "uiSchema": FLIGHT_UI,
        "metadata": {"version": "0.1", "agent_context": "flight_booking", "step": 0, "steps": 1},
    }
    assert asked.content[0].text.startswith("Showing a form: Book a Flight to Japan.")  # type: ignore[union-attr]
    # The widget reads the bound the form was accepted under (settings) beside its session id.
    limits = {"valueSteps": forms_core.settings.forms_max_value_steps}
    # ... and the key it answers with (submit_form refuses answers without it).
    assert asked.meta == {"openai/widgetSessionId": form_id, "dgui_limits": limits, ANSWER_KEY_META: KEYS[form_id]}
    assert structured(pending) == structured(still_pending)
    assert structured(pending) == {
        "type": "dgui_pending",
        "formId": form_id,
        "data": None,
        "step": 0,
        "steps": 1,
        "complete": False,
        "next": None,
    }
    error = error_of(missing)
    assert error == {
        "code": "invalid_answer",
        "message": error["message"],
        "fields": {"departureDate": "This field is required."},
    }
    assert structured(missing) == {
        "type": "dgui_error",
        "message": error["message"],
        "payload": {"destinationCity": "Tokyo"},
    }
    assert missing.content[0].text == error["message"]  # type: ignore[union-attr]
    assert_conforms(missing, submit_schema)
    assert structured(answered) == {
        "type": "dgui_response",
        "formId": form_id,
        "data": ANSWER,
        "step": 0,
        "steps": 1,
        "complete": True,
        "next": None,
    }
    assert again == answered
    assert error_of(changed)["code"] == "already_answered"
    assert structured(response) == {**structured(answered), "step": None}


@pytest.mark.parametrize(
    ("question", "message"),
    [
        ({"type": "object"}, "Invalid JSON schema. Missing 'properties' field."),
        ('{"type": "object", "properties": ', "Invalid JSON in question"),
        ({"type": "object", "properties": {"a": {"type": "text"}}}, "Invalid JSON schema at properties/a/type"),
        ("[1, 2]", "The question must be a JSON object, not list."),
        (
            {"type": "object", "properties": {"a": {"type": "string", "pattern": "("}}},
            "Invalid JSON schema at properties/a/pattern: the pattern '(' does not compile",
        ),
    ],
)
async def test_a_question_that_is_not_a_form_schema_gets_a_dgui_error_naming_the_problem(
    client: Client, question: Any, message: str
) -> None:
    async with client:
        result = await ask(client, question=question)
        ask_schema = await output_schema(client, "ask_question")

    error = error_of(result)
    assert error == {"code": "invalid_schema", "message": error["message"]}
    assert error["message"].startswith(message)
    assert structured(result) == {"type": "dgui_error", "message": error["message"], "payload": question}
    assert_conforms(result, ask_schema)


async def test_a_catastrophic_pattern_costs_its_field_a_message_and_the_form_stays_pending(client: Client) -> None:
    # Exponential backtracking on this answer: the call ends because the pattern engine's timeout fires.
    question = {
        "type": "object",
        "properties": {"code": {"type": "string", "title": "Code", "pattern": "^(a|a)*$"}},
        "required": ["code"],
    }
    adversarial = {"code": "a" * 28 + "!"}
    async with client:
        form_id = structured(await ask(client, question=question))["formId"]
        refused = await client.call_tool("submit_form", keyed({"formId": form_id, "data": adversarial}), meta=ALICE)
        pending = await client.call_tool("get_form_response", {"formId": form_id}, meta=ALICE)
        answered = await client.call_tool(
            "submit_form", keyed({"formId": form_id, "data": {"code": "aaaa"}}), meta=ALICE
        )

    error = error_of(refused)
    assert (error["code"], error["fields"]) == (
        "invalid_answer",
        {"code": "This answer could not be checked against the expected pattern in time; try a shorter one."},
    )
    assert structured(refused) == {"type": "dgui_error", "message": error["message"], "payload": adversarial}
    assert (structured(pending)["type"], structured(pending)["step"]) == ("dgui_pending", 0)
    assert (structured(answered)["type"], structured(answered)["data"]) == ("dgui_response", {"code": "aaaa"})


async def test_another_users_form_is_not_found_and_a_caller_without_identity_answers_only_its_own_forms(
    client: Client,
) -> None:
    async with client:
        form_id = structured(await ask(client, question=FLIGHT))["formId"]
        theirs = await client.call_tool("get_form_response", {"formId": form_id}, meta=BOB)
        submit = await client.call_tool("submit_form", keyed({"formId": form_id, "data": ANSWER}), meta=BOB)
        nobody = await client.call_tool("submit_form", keyed({"formId": form_id, "data": ANSWER}))
        anonymous = structured(keep_key(await client.call_tool("ask_question", {"question": FLIGHT})))
        answered = await client.call_tool("submit_form", keyed({"formId": anonymous["formId"], "data": ANSWER}))
        alice_on_it = await client.call_tool("get_form_response", {"formId": anonymous["formId"]}, meta=ALICE)
        read_back = await client.call_tool("get_form_response", {"formId": anonymous["formId"]})
        mine = await client.call_tool("get_form_response", {"formId": form_id}, meta=ALICE)

    codes = {error_of(r)["code"] for r in (theirs, submit, nobody, alice_on_it)}
    assert codes == {"form_not_found"}
    assert (anonymous["type"], len(anonymous["formId"])) == ("dgui_form", 24)
    assert structured(answered)["type"] == "dgui_response"
    assert structured(read_back) | {"formId": "<id>"} == structured(answered) | {"formId": "<id>", "step": None}
    assert structured(mine)["type"] == "dgui_pending"


async def test_a_two_step_form_shows_the_next_step_and_keeps_both_answers(client: Client) -> None:
    passengers = {"type": "object", "properties": {"adults": {"type": "integer", "minimum": 1}}, "required": ["adults"]}
    async with client:
        asked = await ask(
            client, question=FLIGHT, title="Flight", metadata={"next": {"title": "Who flies", "schema": passengers}}
        )
        form_id = structured(asked)["formId"]
        first = await client.call_tool("submit_form", keyed({"formId": form_id, "data": ANSWER}), meta=ALICE)
        halfway = await client.call_tool("get_form_response", {"formId": form_id}, meta=ALICE)
        second = await client.call_tool("submit_form", keyed({"formId": form_id, "data": {"adults": 2}}), meta=ALICE)
        done = await client.call_tool("get_form_response", {"formId": form_id}, meta=ALICE)

    assert structured(asked)["metadata"]["steps"] == 2
    assert structured(first)["complete"] is False
    assert structured(first)["next"]["title"] == "Who flies"
    assert structured(first)["next"]["schema"] == passengers
    assert (structured(halfway)["type"], structured(halfway)["step"]) == ("dgui_pending", 1)
    assert structured(second)["complete"] is True
    assert structured(done)["data"] == {**ANSWER, "adults": 2}
    # Only a result that carries a form to draw tells the widget what the form was accepted under.
    assert "dgui_limits" in (first.meta or {})
    assert "dgui_limits" not in (second.meta or {})


async def test_every_result_with_a_form_to_draw_carries_the_value_step_bound_the_server_runs_with(
    settings: Settings, store: DocumentStore
) -> None:
    raised = settings.model_copy(update={"forms_max_value_steps": 40_000})
    client = Client(build_server(build_core(raised, store=store).runtime), mode="legacy")
    passengers = {"type": "object", "properties": {"adults": {"type": "integer"}}}
    async with client:
        asked = await ask(client, question=FLIGHT, metadata={"next": {"title": "Who flies", "schema": passengers}})
        form_id = structured(asked)["formId"]
        first = await client.call_tool("submit_form", keyed({"formId": form_id, "data": ANSWER}), meta=ALICE)

    assert structured(first)["next"]["title"] == "Who flies"
    for result in (asked, first):
        assert (result.meta or {})["dgui_limits"] == {"valueSteps": raised.forms_max_value_steps}


async def test_form_tools_declare_visibility_and_the_form_template(client: Client, forms_core: Core) -> None:
    async with client:
        tools = {t.name: t for t in (await client.list_tools()).tools}

    ask_meta, submit_meta = tools["ask_question"].meta or {}, tools["submit_form"].meta or {}
    assert ask_meta["openai/outputTemplate"] == forms_core.runtime.template_uri("form")
    assert (submit_meta["openai/visibility"], submit_meta["ui"]["visibility"]) == ("private", ["app"])
    assert submit_meta["openai/widgetAccessible"] is True
    assert tools["get_form_response"].annotations is not None
    assert tools["get_form_response"].annotations.read_only_hint is True
