"""DynamoDB faults injected at the adapter's boto3 client (the product's own client, standard retry mode, on a
moto server): botocore retries a bounded number of times with its jittered backoff, the tool answers a clear
retryable error, nothing is half-written, and the next call works. Conditional-check failures take the
contract's conflict path, and a write whose answer was lost is not reported as a failure."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import botocore.endpoint
import pytest
from dynamodb_probe import client_for, moto_dynamodb
from form_keys import keep_key, keyed
from mcp import Client
from mcp_types import CallToolResult, TextContent
from storage_faults import (
    CONNECT_TIMEOUT,
    INTERNAL_ERROR,
    READ_TIMEOUT,
    RETRIED_FAULTS,
    SERVICE_UNAVAILABLE,
    THROTTLING,
    Fault,
    FaultInjector,
    answer_lost,
    before,
)
from tool_results import error_of, error_state, structured
from widget_mcp.apps.chess.repository import GameRepository
from widget_mcp.apps.chess.service import ChessService, MoveRequest
from widget_mcp.apps.forms.repository import FormRepository
from widget_mcp.apps.forms.service import FormService
from widget_mcp.server import build_server
from widget_mcp.settings import Settings
from widget_mcp.storage.dynamodb import MAX_ATTEMPTS, DynamoDbDocumentStore, default_client
from widget_mcp.toolkit.ownership import StateOwner
from widget_mcp.wiring import build_core

TABLE = "faults-state"
ALICE = {"openai/subject": "alice"}
OWNER = StateOwner("openai:alice")
FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
# botocore's standard mode: the i-th retry waits rand(0, 1) * scale * 2**(i-1); DynamoDB's scales.
THROTTLED_SCALE, TRANSIENT_SCALE = 1.0, 0.025
# Whether a write that failed this way may still have landed (its answer was lost, or DynamoDB erred).
OUTCOME_UNKNOWN_ON_WRITE = {INTERNAL_ERROR.name, SERVICE_UNAVAILABLE.name, READ_TIMEOUT.name}


@pytest.fixture(scope="module")
def moto_url() -> Iterator[str]:
    with moto_dynamodb(TABLE) as url:
        yield url


@pytest.fixture
def backoff(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The delays botocore's retry handler asks for, recorded instead of slept (botocore computes them)."""
    delays: list[float] = []
    monkeypatch.setattr(botocore.endpoint, "time", SimpleNamespace(sleep=delays.append))
    return delays


@pytest.fixture
def store(moto_url: str, monkeypatch: pytest.MonkeyPatch) -> DynamoDbDocumentStore:
    """The product's store on the product's client, pointed at moto through the standard environment."""
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    for name, value in {
        "AWS_ENDPOINT_URL_DYNAMODB": moto_url,
        "AWS_ACCESS_KEY_ID": "t",
        "AWS_SECRET_ACCESS_KEY": "t",
        "AWS_DEFAULT_REGION": "eu-west-1",
    }.items():
        monkeypatch.setenv(name, value)
    return DynamoDbDocumentStore(default_client, TABLE)


@pytest.fixture
def faults(store: DynamoDbDocumentStore) -> FaultInjector:
    return FaultInjector(store.client)


@pytest.fixture
def client(settings: Settings, store: DynamoDbDocumentStore) -> Client:
    return Client(build_server(build_core(settings, store=store).runtime), mode="legacy")


def unavailable(tool: str, *, outcome_unknown: bool = False) -> dict[str, Any]:
    """The whole error result a storage outage gives."""
    message = (
        f"{tool} lost contact with its storage while saving; the change may or may not have been made. "
        "Check the current state, then try again."
        if outcome_unknown
        else f"{tool} could not reach its storage; nothing was changed. Try again shortly."
    )
    return {
        "is_error": True,
        "content": [TextContent(type="text", text=message)],
        "structured": None,
        "meta": {"error": {"code": "service_unavailable", "message": message, "retryable": True}},
    }


def whole(result: CallToolResult) -> dict[str, Any]:
    return {
        "is_error": result.is_error,
        "content": result.content,
        "structured": result.structured_content,
        "meta": result.meta,
    }


def assert_botocore_backed_off(delays: list[float], fault: Fault, retries: int = MAX_ATTEMPTS - 1) -> None:
    scale = THROTTLED_SCALE if fault.throttling else TRANSIENT_SCALE
    assert len(delays) == retries, delays
    for attempt, delay in enumerate(delays, start=1):
        assert 0 <= delay <= scale * 2 ** (attempt - 1), delays


async def new_game(client: Client) -> str:
    return str(structured(await client.call_tool("chess_new_game", {}, meta=ALICE))["gameId"])


async def shown(client: Client, game_id: str) -> dict[str, Any]:
    result = await client.call_tool("chess_show_game", {"gameId": game_id}, meta=ALICE)
    assert result.meta is not None
    return {"ply": structured(result)["ply"], "history": result.meta["moveHistory"]}


@pytest.mark.parametrize("fault", RETRIED_FAULTS, ids=lambda f: f.name)
async def test_a_move_whose_save_keeps_failing_is_retried_by_botocore_up_to_its_limit_and_changes_nothing(
    client: Client, faults: FaultInjector, backoff: list[float], fault: Fault
) -> None:
    async with client:
        game_id = await new_game(client)
        faults.clear()
        faults.plan("PutItem", fault.action)

        failed = await client.call_tool("chess_move", {"gameId": game_id, "move": "e4", "expectedPly": 0}, meta=ALICE)

        assert whole(failed) == unavailable("chess_move", outcome_unknown=fault.name in OUTCOME_UNKNOWN_ON_WRITE)
        assert faults.attempts == {"UpdateItem": 1, "GetItem": 1, "PutItem": MAX_ATTEMPTS}
        assert_botocore_backed_off(backoff, fault)
        assert await shown(client, game_id) == {"ply": 0, "history": []}
        faults.clear()
        moved = await client.call_tool("chess_move", {"gameId": game_id, "move": "e4", "expectedPly": 0}, meta=ALICE)
        assert not moved.is_error
        assert await shown(client, game_id) == {"ply": 1, "history": ["e4"]}


@pytest.mark.parametrize("fault", [THROTTLING, SERVICE_UNAVAILABLE, CONNECT_TIMEOUT], ids=lambda f: f.name)
@pytest.mark.parametrize(
    ("tool", "operation"),
    [("chess_show_game", "GetItem"), ("chess_list_games", "Query"), ("get_form_response", "GetItem")],
)
async def test_a_read_that_keeps_failing_answers_a_retryable_error_after_the_configured_attempts(
    client: Client, faults: FaultInjector, backoff: list[float], fault: Fault, tool: str, operation: str
) -> None:
    async with client:
        asked = await client.call_tool("ask_question", {"question": FORM}, meta=ALICE)
        args = {"chess_show_game": {"gameId": await new_game(client)}, "chess_list_games": {}}.get(
            tool, {"formId": structured(asked)["formId"]}
        )
        faults.clear()
        faults.plan(operation, fault.action)

        failed = await client.call_tool(tool, args, meta=ALICE)

        assert whole(failed) == unavailable(tool)
        assert faults.attempts == {"UpdateItem": 1, operation: MAX_ATTEMPTS}
        assert_botocore_backed_off(backoff, fault)
        faults.clear()
        assert not (await client.call_tool(tool, args, meta=ALICE)).is_error


async def test_a_form_answer_whose_save_keeps_failing_leaves_the_form_unanswered_and_can_be_sent_again(
    client: Client, faults: FaultInjector, backoff: list[float]
) -> None:
    async with client:
        form_id = structured(keep_key(await client.call_tool("ask_question", {"question": FORM}, meta=ALICE)))["formId"]
        faults.clear()
        # The answer completes the form, so the form and its owner's ledger (its place given back) are written in
        # one transaction.
        faults.plan("TransactWriteItems", THROTTLING.action)
        answer = keyed({"formId": form_id, "data": {"name": "Ada"}})

        failed = await client.call_tool("submit_form", answer, meta=ALICE)

        assert whole(failed) == unavailable("submit_form")
        assert faults.attempts["TransactWriteItems"] == MAX_ATTEMPTS
        assert_botocore_backed_off(backoff, THROTTLING)
        faults.clear()
        pending = await client.call_tool("get_form_response", {"formId": form_id}, meta=ALICE)
        assert structured(pending)["type"] == "dgui_pending"
        assert structured(await client.call_tool("submit_form", answer, meta=ALICE))["data"] == {"name": "Ada"}


async def test_a_throttled_save_that_clears_on_a_retry_succeeds_without_the_caller_noticing(
    client: Client, faults: FaultInjector, backoff: list[float]
) -> None:
    async with client:
        game_id = await new_game(client)
        faults.clear()
        faults.plan("PutItem", THROTTLING.action, times=1)

        moved = await client.call_tool("chess_move", {"gameId": game_id, "move": "d4", "expectedPly": 0}, meta=ALICE)

        assert (moved.is_error, structured(moved)["ply"]) == (False, 1)
        assert faults.attempts == {"UpdateItem": 1, "GetItem": 1, "PutItem": 2}
        assert_botocore_backed_off(backoff, THROTTLING, retries=1)


async def test_a_conditional_check_failure_is_not_retried_and_answers_conflict_with_the_other_writers_game(
    client: Client, faults: FaultInjector, backoff: list[float], moto_url: str
) -> None:
    async with client:
        game_id = await new_game(client)
        rival = ChessService(GameRepository(DynamoDbDocumentStore(client_for(moto_url), TABLE)))
        faults.clear()
        # Another writer's move lands between this call's read and its conditional put.
        faults.plan("PutItem", before(lambda: rival.move(OWNER, game_id, MoveRequest("d4"), 0)), times=1)

        lost = await client.call_tool("chess_move", {"gameId": game_id, "move": "e4", "expectedPly": 0}, meta=ALICE)

        assert lost.is_error
        assert error_of(lost)["code"] == "conflict"
        assert "retryable" not in error_of(lost)  # retry only after looking at the new position
        assert (error_state(lost)["ply"], error_state(lost)["lastMove"]["san"]) == (1, "d4")
        assert faults.attempts == {"UpdateItem": 1, "GetItem": 1, "PutItem": 1}
        assert backoff == []
        assert await shown(client, game_id) == {"ply": 1, "history": ["d4"]}


async def test_a_form_answer_beaten_by_a_different_answer_is_refused_and_the_first_answer_stays(
    client: Client, faults: FaultInjector, moto_url: str
) -> None:
    async with client:
        form_id = structured(keep_key(await client.call_tool("ask_question", {"question": FORM}, meta=ALICE)))["formId"]
        rival = FormService(FormRepository(DynamoDbDocumentStore(client_for(moto_url), TABLE)))
        faults.clear()
        rivals = before(lambda: rival.submit(OWNER, form_id, {"name": "Grace"}, None))
        faults.plan("TransactWriteItems", rivals, times=1)  # the answer and the place it gives back, together

        refused = await client.call_tool("submit_form", keyed({"formId": form_id, "data": {"name": "Ada"}}), meta=ALICE)

        assert (refused.is_error, error_of(refused)["code"]) == (True, "already_answered")
        assert faults.attempts["TransactWriteItems"] == 1
        stored = await client.call_tool("get_form_response", {"formId": form_id}, meta=ALICE)
        assert structured(stored)["data"] == {"name": "Grace"}


async def test_a_new_game_whose_save_answer_was_lost_is_created_once_and_reported_created(
    client: Client, faults: FaultInjector, backoff: list[float]
) -> None:
    async with client:
        faults.plan("TransactWriteItems", answer_lost, times=1)  # the game and its count, written together

        started = await client.call_tool("chess_new_game", {}, meta={"openai/subject": "lost-answer"})

        assert not started.is_error, started.content
        assert faults.attempts["TransactWriteItems"] == 2
        listed = await client.call_tool("chess_list_games", {}, meta={"openai/subject": "lost-answer"})
        assert [g["gameId"] for g in structured(listed)["games"]] == [structured(started)["gameId"]]


@pytest.mark.parametrize(
    ("tool", "args", "writes"),
    [
        # Without expectedPly: only the store can tell the write was its own.
        ("chess_move", {"move": "e4"}, {"GetItem": 1, "PutItem": 2}),
        # The game ends, so its place in the quota is given back: the game and the ledger are read, then written in
        # one transaction.
        ("chess_resign", {}, {"GetItem": 2, "TransactWriteItems": 2}),
    ],
)
async def test_a_game_change_whose_save_answer_was_lost_is_applied_once_and_reported_applied(
    client: Client,
    faults: FaultInjector,
    backoff: list[float],
    tool: str,
    args: dict[str, Any],
    writes: dict[str, int],
) -> None:
    async with client:
        game_id = await new_game(client)
        faults.clear()
        faults.plan(next(op for op in writes if op != "GetItem"), answer_lost, times=1)

        changed = await client.call_tool(tool, {"gameId": game_id, **args}, meta=ALICE)

        assert not changed.is_error, changed.content
        assert faults.attempts == {"UpdateItem": 1, **writes}
        again = await client.call_tool("chess_show_game", {"gameId": game_id}, meta=ALICE)
        assert structured(again) == structured(changed)


async def test_a_form_answer_whose_save_answer_was_lost_is_stored_once_and_reported_stored(
    client: Client, faults: FaultInjector, backoff: list[float]
) -> None:
    async with client:
        form_id = structured(keep_key(await client.call_tool("ask_question", {"question": FORM}, meta=ALICE)))["formId"]
        faults.clear()
        faults.plan("TransactWriteItems", answer_lost, times=1)  # the answer and the place it gives back, together

        answered = await client.call_tool(
            "submit_form", keyed({"formId": form_id, "data": {"name": "Ada"}}), meta=ALICE
        )

        assert (answered.is_error, structured(answered)["data"]) == (False, {"name": "Ada"})
        assert faults.attempts["TransactWriteItems"] == 2


@pytest.mark.parametrize("fault", [THROTTLING, SERVICE_UNAVAILABLE], ids=lambda f: f.name)
async def test_a_new_game_whose_write_keeps_failing_stores_neither_the_game_nor_its_count(
    client: Client, faults: FaultInjector, backoff: list[float], fault: Fault, moto_url: str
) -> None:
    caller = {"openai/subject": f"never-stored-{fault.name}"}
    async with client:
        faults.plan("TransactWriteItems", fault.action)

        failed = await client.call_tool("chess_new_game", {}, meta=caller)

        assert error_of(failed)["code"] == "service_unavailable"
        assert faults.attempts["TransactWriteItems"] == MAX_ATTEMPTS
        items = client_for(moto_url).scan(TableName=TABLE)["Items"]
        key = f"openai:{caller['openai/subject']}"
        mine = {(item["pk"]["S"], item["sk"]["S"].split("#")[0]) for item in items if item["pk"]["S"].endswith(key)}
        assert mine == {(f"LIMIT#{key}", "RATE")}  # the call was counted; no game, no count against the quota
        faults.clear()
        assert not (await client.call_tool("chess_new_game", {}, meta=caller)).is_error


async def test_a_rate_counter_that_cannot_be_reached_answers_a_retryable_error_before_reading_anything(
    client: Client, faults: FaultInjector, backoff: list[float]
) -> None:
    async with client:
        game_id = await new_game(client)
        faults.clear()
        faults.plan("UpdateItem", THROTTLING.action)

        failed = await client.call_tool("chess_show_game", {"gameId": game_id}, meta=ALICE)

        assert whole(failed) == unavailable("chess_show_game")
        assert faults.attempts == {"UpdateItem": MAX_ATTEMPTS}
