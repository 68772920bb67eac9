"""Isolation between principals, through every tool, on DynamoDB (a moto server on loopback): another user's ids
answer exactly as made-up ids do, a caller without identity reads and writes nothing, and no log line carries
the host's personal hints."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from dynamodb_probe import client_for, moto_dynamodb
from mcp import Client
from mcp_types import CallToolResult
from storage_faults import CONNECT_TIMEOUT, FaultInjector
from tool_results import structured
from widget_mcp.server import build_server
from widget_mcp.settings import Settings
from widget_mcp.storage.documents import time_ordered_id
from widget_mcp.storage.dynamodb import DynamoDbDocumentStore
from widget_mcp.wiring import build_core

TABLE = "isolation-state"
ALICE = {"openai/subject": "alice"}
BOB = {"openai/subject": "bob"}
# The same id string from another source is another principal.
HOST_ALICE = {"io.modelcontextprotocol/user": "alice"}
FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
# Request _meta without a usable identity: nothing, only other hints, or subjects that are not safe ids.
NO_IDENTITY: list[dict[str, Any] | None] = [
    None,
    {},
    {"openai/locale": "en-GB", "openai/session": "s-1"},
    {"openai/subject": ""},
    {"openai/subject": "alice smith"},
    {"openai/subject": "a" * 201},
    {"io.modelcontextprotocol/user": {"name": "alice"}},
]


@pytest.fixture(scope="module")
def dynamodb() -> Iterator[Any]:
    with moto_dynamodb(TABLE) as url:
        yield client_for(url)


@pytest.fixture
def store(dynamodb: Any) -> DynamoDbDocumentStore:
    return DynamoDbDocumentStore(dynamodb, TABLE)


@pytest.fixture
def client(settings: Settings, store: DynamoDbDocumentStore) -> Client:
    return Client(build_server(build_core(settings, store=store).runtime), mode="legacy")


def wire(result: CallToolResult, doc_id: str) -> str:
    """The whole result as sent, with the id asked about written as <id>."""
    return json.dumps(result.model_dump(mode="json", by_alias=True), sort_keys=True).replace(doc_id, "<id>")


def table_items(dynamodb: Any) -> list[dict[str, Any]]:
    items = dynamodb.scan(TableName=TABLE, ConsistentRead=True)["Items"]
    return sorted(items, key=lambda item: (item["pk"]["S"], item["sk"]["S"]))


async def alices_things(client: Client) -> tuple[str, str]:
    """A game with one move played, and an unanswered form."""
    game_id = structured(await client.call_tool("chess_new_game", {}, meta=ALICE))["gameId"]
    played = await client.call_tool("chess_move", {"gameId": game_id, "move": "e4", "expectedPly": 0}, meta=ALICE)
    assert not played.is_error
    form_id = structured(await client.call_tool("ask_question", {"question": FORM}, meta=ALICE))["formId"]
    return game_id, form_id


def calls_on(game_id: str, form_id: str) -> list[tuple[str, dict[str, Any], str]]:
    """Every tool that takes an id, with arguments that would succeed for the owner: (tool, args, the id)."""
    return [
        ("chess_move", {"gameId": game_id, "move": "e5", "expectedPly": 1}, game_id),
        ("chess_move", {"gameId": game_id, "from": "e7", "to": "e5"}, game_id),
        ("chess_move", {"gameId": game_id, "move": "e4", "expectedPly": 0}, game_id),  # a replay, for the owner
        ("chess_show_game", {"gameId": game_id}, game_id),
        ("chess_resign", {"gameId": game_id}, game_id),
        ("get_form_response", {"formId": form_id}, form_id),
        ("submit_form", {"formId": form_id, "data": {"name": "Mallory"}}, form_id),
        ("submit_form", {"formId": form_id, "data": {"name": 7}}, form_id),  # invalid for the form's schema
    ]


@pytest.mark.parametrize("stranger", [BOB, HOST_ALICE], ids=["another subject", "same id from a host hint"])
async def test_another_user_gets_for_every_one_of_alices_ids_the_very_answer_a_made_up_id_gets(
    client: Client, dynamodb: Any, stranger: dict[str, str]
) -> None:
    async with client:
        game_id, form_id = await alices_things(client)
        before = table_items(dynamodb)
        made_up_game, made_up_form = time_ordered_id(), time_ordered_id()

        for (tool, args, real_id), (_, fake_args, fake_id) in zip(
            calls_on(game_id, form_id), calls_on(made_up_game, made_up_form), strict=True
        ):
            theirs = await client.call_tool(tool, args, meta=stranger)
            unknown = await client.call_tool(tool, fake_args, meta=stranger)
            assert theirs.is_error, (tool, args)
            expected = "game_not_found" if tool.startswith("chess") else "form_not_found"
            assert structured(theirs)["error"]["code"] == expected
            assert wire(theirs, real_id) == wire(unknown, fake_id)

        listed = await client.call_tool("chess_list_games", {}, meta=stranger)
        assert structured(listed) == {"games": [], "count": 0}
        assert table_items(dynamodb) == before
        shown = await client.call_tool("chess_show_game", {"gameId": game_id}, meta=ALICE)
        assert (structured(shown)["status"], shown.meta and shown.meta["moveHistory"]) == ("active", ["e4"])
        pending = await client.call_tool("get_form_response", {"formId": form_id}, meta=ALICE)
        assert structured(pending)["type"] == "dgui_pending"


@pytest.mark.parametrize("meta", NO_IDENTITY, ids=lambda m: json.dumps(m)[:40])
async def test_a_caller_without_identity_is_asked_for_one_by_every_stateful_tool_and_writes_nothing(
    client: Client, dynamodb: Any, meta: dict[str, Any] | None
) -> None:
    async with client:
        game_id, form_id = await alices_things(client)
        before = table_items(dynamodb)
        calls = [
            ("chess_new_game", {}),
            ("chess_new_game", {"opponent": "engine", "color": "black"}),
            ("chess_list_games", {}),
            ("ask_question", {"question": FORM}),
            *[(tool, args) for tool, args, _ in calls_on(game_id, form_id)],
        ]

        codes = [structured(await client.call_tool(tool, args, meta=meta))["error"]["code"] for tool, args in calls]

        assert codes == ["identity_required"] * len(calls)
        assert table_items(dynamodb) == before
        assert not any(item["pk"]["S"].startswith("USER#anonymous") for item in before)


PERSONAL_HINTS = {
    "openai/subject": "subj-Q7ZK3PW",
    "openai/session": "sess-V9XW2LM",
    "openai/locale": "tlh-XZ",
    "openai/userAgent": "Kestrelbrowser/77.1 (Zorbian OS 4)",
    "openai/userLocation": {
        "city": "Vexhollow",
        "region": "Quillmarsh",
        "country": "Zyqvania",
        "timezone": "Pacific/Kanton",
        "latitude": "12.34567",
        "longitude": "-65.43219",
    },
    "openai/widgetSessionId": "widg-H4RR1ER",
}


def personal_strings() -> list[str]:
    found: list[str] = []
    for value in PERSONAL_HINTS.values():
        found.extend(value.values() if isinstance(value, dict) else [value])
    return found


@pytest.mark.parametrize("level", ["INFO", "DEBUG"])
async def test_no_log_line_carries_the_users_location_locale_agent_or_ids_whatever_the_call_does(
    settings: Settings,
    store: DynamoDbDocumentStore,
    dynamodb: Any,
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    level: str,
) -> None:
    # The product's LOG_LEVEL sets its own loggers; third-party ones keep the process's level (WARNING).
    caplog.set_level(level, logger="widget_mcp")
    core = build_core(settings.model_copy(update={"log_level": level}), store=store)
    me = PERSONAL_HINTS
    async with Client(build_server(core.runtime), mode="legacy") as client:
        game_id = structured(await client.call_tool("chess_new_game", {}, meta=me))["gameId"]
        outcomes = [
            await client.call_tool("chess_move", {"gameId": game_id, "move": "e4", "expectedPly": 0}, meta=me),
            await client.call_tool("chess_move", {"gameId": game_id, "move": "d5", "expectedPly": 3}, meta=me),
            await client.call_tool("chess_move", {"gameId": game_id, "move": "Ke7"}, meta=me),
            await client.call_tool("chess_move", {"gameId": "not an id"}, meta=me),
            await client.call_tool("chess_show_game", {"gameId": time_ordered_id()}, meta=me),
            await client.call_tool("ask_question", {"question": {"type": "nonsense"}}, meta=me),
        ]
        faults = FaultInjector(store.client)
        faults.plan("GetItem", CONNECT_TIMEOUT.action)
        outcomes.append(await client.call_tool("chess_show_game", {"gameId": game_id}, meta=me))
        faults.remove()
        # A stored game that no longer replays: an internal error, logged with its traceback.
        key = {"pk": {"S": "USER#openai:subj-Q7ZK3PW"}, "sk": {"S": f"GAME#{game_id}"}}
        dynamodb.update_item(
            TableName=TABLE,
            Key=key,
            UpdateExpression="SET body = :b",
            ExpressionAttributeValues={":b": {"S": '{"game": {"v": 1}, "summary": {}, "analysis": null}'}},
        )
        outcomes.append(await client.call_tool("chess_show_game", {"gameId": game_id}, meta=me))

    assert [structured(r).get("error", {}).get("code") for r in outcomes] == [
        None,
        "conflict",
        "illegal_move",
        "invalid_arguments",
        "game_not_found",
        "invalid_schema",
        "service_unavailable",
        "internal_error",
    ]
    printed = capfd.readouterr()
    logged = printed.out + printed.err + "\n".join(caplog.messages) + caplog.text
    assert "tool call failed" in logged  # the logs were captured
    leaked = [hint for hint in personal_strings() if hint in logged]
    assert leaked == [], [line for line in logged.splitlines() if any(h in line for h in leaked)][:5]
