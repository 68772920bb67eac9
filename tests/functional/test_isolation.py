"""Isolation between principals, through every tool, on DynamoDB (a moto server on loopback): another user's ids
answer exactly as made-up ids do, a caller without identity reads and writes nothing, and no log line carries
the host's personal hints."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from dynamodb_probe import client_for, moto_dynamodb
from form_keys import keep_key, keyed
from mcp import Client
from mcp_types import CallToolResult
from storage_faults import CONNECT_TIMEOUT, FaultInjector
from tool_results import error_of, structured, text_of
from widget_mcp.server import build_server
from widget_mcp.settings import Settings
from widget_mcp.storage.documents import time_ordered_id
from widget_mcp.storage.dynamodb import DynamoDbDocumentStore
from widget_mcp.toolkit.ownership import CAPABILITY_ID_LENGTH, capability_id
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
    """Every user's and capability's state; not the `LIMIT#` items, where each call counts against its caller's
    own rate limit (and creates against its quota)."""
    items = dynamodb.scan(TableName=TABLE, ConsistentRead=True)["Items"]
    state = [item for item in items if item["pk"]["S"].startswith("USER#")]
    return sorted(state, key=lambda item: (item["pk"]["S"], item["sk"]["S"]))


async def things_of(client: Client, meta: dict[str, Any] | None) -> tuple[str, str]:
    """A game with one move played, and an unanswered form, made by the caller `meta` names."""
    game_id = structured(await client.call_tool("chess_new_game", {}, meta=meta))["gameId"]
    played = await client.call_tool("chess_move", {"gameId": game_id, "move": "e4", "expectedPly": 0}, meta=meta)
    assert not played.is_error
    form_id = structured(await client.call_tool("ask_question", {"question": FORM}, meta=meta))["formId"]
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


# (owner, stranger): identities never cross, in either direction, and a caller without identity is one side.
CROSSINGS = [
    pytest.param(ALICE, BOB, id="another subject"),
    pytest.param(ALICE, HOST_ALICE, id="same id from a host hint"),
    pytest.param(ALICE, None, id="no identity, holding alice's ids"),
    pytest.param(None, ALICE, id="alice, holding ids made without identity"),
    pytest.param(None, HOST_ALICE, id="a host user, holding ids made without identity"),
]


@pytest.mark.parametrize(("owner", "stranger"), CROSSINGS)
async def test_a_stranger_gets_for_every_one_of_the_owners_ids_the_very_answer_a_made_up_id_gets(
    client: Client, dynamodb: Any, owner: dict[str, str] | None, stranger: dict[str, str] | None
) -> None:
    async with client:
        game_id, form_id = await things_of(client, owner)
        before = table_items(dynamodb)
        # Made-up ids of the same shape as the owner's, so a difference in the answers could only leak existence.
        make_id = time_ordered_id if owner else capability_id
        made_up_game, made_up_form = make_id(), make_id()

        for (tool, args, real_id), (_, fake_args, fake_id) in zip(
            calls_on(game_id, form_id), calls_on(made_up_game, made_up_form), strict=True
        ):
            theirs = await client.call_tool(tool, args, meta=stranger)
            unknown = await client.call_tool(tool, fake_args, meta=stranger)
            assert theirs.is_error, (tool, args)
            expected = "game_not_found" if tool.startswith("chess") else "form_not_found"
            assert error_of(theirs)["code"] == expected
            assert wire(theirs, real_id) == wire(unknown, fake_id)

        listed = await client.call_tool("chess_list_games", {}, meta=stranger)
        assert game_id not in [g["gameId"] for g in structured(listed)["games"]]
        assert table_items(dynamodb) == before
        shown = await client.call_tool("chess_show_game", {"gameId": game_id}, meta=owner)
        assert (structured(shown)["status"], shown.meta and shown.meta["moveHistory"]) == ("active", ["e4"])
        pending = await client.call_tool("get_form_response", {"formId": form_id}, meta=owner)
        assert structured(pending)["type"] == "dgui_pending"


@pytest.mark.parametrize("meta", NO_IDENTITY, ids=lambda m: json.dumps(m)[:40])
async def test_a_caller_without_identity_plays_and_answers_by_unguessable_ids_kept_apart_from_every_user(
    client: Client, dynamodb: Any, meta: dict[str, Any] | None
) -> None:
    async with client:
        alices = await things_of(client, ALICE)
        game_id = structured(await client.call_tool("chess_new_game", {"opponent": "engine"}, meta=meta))["gameId"]
        moved = await client.call_tool("chess_move", {"gameId": game_id, "move": "e4", "expectedPly": 0}, meta=meta)
        shown = await client.call_tool("chess_show_game", {"gameId": game_id}, meta=meta)
        listed = await client.call_tool("chess_list_games", {}, meta=meta)
        resigned = await client.call_tool("chess_resign", {"gameId": game_id}, meta=meta)
        asked = keep_key(await client.call_tool("ask_question", {"question": FORM}, meta=meta))
        form_id = structured(asked)["formId"]
        answered = await client.call_tool("submit_form", keyed({"formId": form_id, "data": {"name": "Ada"}}), meta=meta)
        response = await client.call_tool("get_form_response", {"formId": form_id}, meta=meta)
        alices_list = await client.call_tool("chess_list_games", {}, meta=ALICE)

    assert [len(game_id), len(form_id)] == [CAPABILITY_ID_LENGTH] * 2
    assert re.fullmatch(r"[A-Za-z0-9_-]+", game_id + form_id)
    assert (structured(moved)["ply"], structured(shown)["ply"]) == (2, 2)  # the engine replied in the same call
    assert structured(listed) == {"games": [], "count": 0}
    assert "needs a signed-in or identified user" in text_of(listed)
    assert (structured(resigned)["status"], structured(resigned)["winner"]) == ("resigned", "black")
    assert structured(answered)["type"] == "dgui_response"
    assert (structured(response)["type"], structured(response)["data"]) == ("dgui_response", {"name": "Ada"})
    alices_games = [g["gameId"] for g in structured(alices_list)["games"]]
    assert alices[0] in alices_games
    assert game_id not in alices_games
    # Each capability is its own partition, never a user's, and expires like everything else.
    partitions = {item["sk"]["S"]: item for item in table_items(dynamodb)}
    for kind, doc_id in (("GAME", game_id), ("FORM", form_id)):
        item = partitions[f"{kind}#{doc_id}"]
        assert item["pk"]["S"] == f"USER#capability:{doc_id}"
        assert int(item["ttl"]["N"]) > time.time()


async def test_capability_ids_do_not_repeat_and_spread_over_the_whole_alphabet(client: Client) -> None:
    async with client:
        ids = [structured(await client.call_tool("chess_new_game", {}))["gameId"] for _ in range(40)]

    assert len(set(ids)) == len(ids)
    assert len(set("".join(ids))) > 50  # random over 64 symbols, not a counter or a clock


@pytest.mark.parametrize("meta", NO_IDENTITY, ids=lambda m: json.dumps(m)[:40])
async def test_with_anonymous_state_refused_a_caller_without_identity_is_asked_for_one_and_writes_nothing(
    settings: Settings, store: DynamoDbDocumentStore, dynamodb: Any, meta: dict[str, Any] | None
) -> None:
    refusing = build_core(settings.model_copy(update={"anonymous_state": "refuse"}), store=store)
    async with Client(build_server(refusing.runtime), mode="legacy") as client:
        game_id, form_id = await things_of(client, ALICE)
        before = table_items(dynamodb)
        calls = [
            ("chess_new_game", {}),
            ("chess_new_game", {"opponent": "engine", "color": "black"}),
            ("chess_list_games", {}),
            ("ask_question", {"question": FORM}),
            *[(tool, args) for tool, args, _ in calls_on(game_id, form_id)],
        ]

        codes = [error_of(await client.call_tool(tool, args, meta=meta))["code"] for tool, args in calls]

        assert codes == ["identity_required"] * len(calls)
        assert table_items(dynamodb) == before


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

    assert [error_of(r)["code"] if r.is_error else None for r in outcomes] == [
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
