"""`make load`'s driver, briefly (three users, a count of sessions, not a duration) against the app over HTTP with
DynamoDB on moto: its ledger comes back clean, and the ledger check catches a lost or doubled move and a lost
answer when fed a doctored record."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
from dynamodb_probe import client_for, moto_dynamodb
from servers import serve
from widget_mcp.settings import Settings
from widget_mcp.storage.dynamodb import DynamoDbDocumentStore
from widget_mcp.toolkit.client_surface import app_only
from widget_mcp.wiring import build_app, build_core

from bench.load_ledger import AcceptedAnswer, AcceptedMove, Ledger, ReadBack, check
from bench.load_users import Plan, Tally, drive, read_back, widget_host

TABLE = "load-state"
WIDGET_BASE = "https://d111111abcdef8.cloudfront.net/widgets"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with pytest.MonkeyPatch.context() as env, moto_dynamodb(TABLE) as dynamodb:
        env.setenv("POWERTOOLS_METRICS_DISABLED", "true")
        settings = Settings(allowed_hosts=("127.0.0.1:*",), widget_base_url=WIDGET_BASE, table_name=TABLE)
        store = DynamoDbDocumentStore(client_for(dynamodb), TABLE)
        with serve(build_app(build_core(settings, concurrent=True, store=store))) as served:
            yield served


@pytest.fixture(scope="module")
def run(url: str) -> tuple[Tally, Ledger, ReadBack]:
    """One short run for the module: each user plays a game against a friend (two races at one ply), one against
    the engine, and answers a three-step form."""
    plan = Plan(users=3, deadline=None, sessions=3, seed=7, moves_per_game=8)
    tally, ledger = asyncio.run(drive(url, plan))
    return tally, ledger, asyncio.run(read_back(url, ledger))


class LosingAnswers:
    """The official client, but every third move's answer is lost after the server applied it (a dropped
    connection): the user must reconnect and settle the move by sending it again."""

    moves = 0
    lost: ClassVar[list[dict[str, Any]]] = []

    def __init__(self, url: str) -> None:
        self.client = widget_host(url)

    async def __aenter__(self) -> LosingAnswers:
        await self.client.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.client.__aexit__(*exc)

    async def call_tool(self, tool: str, arguments: dict[str, Any], **kw: Any) -> Any:
        result = await self.client.call_tool(tool, arguments, **kw)
        if tool == "chess_move" and not result.is_error:
            LosingAnswers.moves += 1
            if LosingAnswers.moves % 3 == 0:
                LosingAnswers.lost.append(arguments)
                raise ConnectionResetError("the answer was lost on the way back")
        return result


def test_a_short_load_run_keeps_every_accepted_move_and_answer_exactly_once(
    run: tuple[Tally, Ledger, ReadBack],
) -> None:
    tally, ledger, held = run
    verdict = check(ledger, held)
    assert verdict.clean, verdict.lost_moves + verdict.doubled_moves + verdict.lost_answers
    assert (len(ledger.games), len(ledger.forms), len(ledger.answers)) == (6, 3, 9)
    assert sum(len(history) for history in held.games.values()) >= len(ledger.moves) > 0
    # The races happened, and each went to one side: the other was refused with conflict, never a second move.
    assert tally.outcomes["chess_move"]["conflict"] >= 3
    assert set(tally.outcomes["chess_move"]) == {"ok", "conflict"}
    assert any(move.replied for move in ledger.moves)  # the engine's replies are in the ledger's count


def test_every_tool_the_load_users_call_is_listed_to_them_as_to_a_widget_host(
    url: str, run: tuple[Tally, Ledger, ReadBack]
) -> None:
    # A tool left out of their listing (a widget's own, such as submit_form, when no MCP Apps host is declared)
    # would have the client list again before each call to it, and its results go unchecked against their schema.
    tally, _, _ = run

    async def listed() -> dict[str, bool]:
        async with widget_host(f"{url}/mcp") as tab:
            return {tool.name: app_only(tool.model_dump(by_alias=True)) for tool in (await tab.list_tools()).tools}

    offered = asyncio.run(listed())
    called = set(tally.outcomes) - {"(reconnect)"}
    assert called <= set(offered)
    assert any(offered[tool] for tool in called), "the users answer forms through the widget's own tool"


def test_the_ledger_check_reports_a_second_move_accepted_at_one_ply_as_doubled(
    run: tuple[Tally, Ledger, ReadBack],
) -> None:
    _, ledger, held = run
    first = ledger.moves[0]
    other = next(uci for uci in ("a2a3", "h2h3", "a7a6") if uci != first.uci)
    doctored = dataclasses.replace(ledger, moves=[*ledger.moves, AcceptedMove(first.game_id, first.ply, other, False)])
    verdict = check(doctored, held)
    assert not verdict.clean
    assert [line.split(":")[0] for line in verdict.doubled_moves] == [f"{first.game_id} ply {first.ply}"]
    # The public ledger line (ARCHITECTURE.md, Operations) counts it.
    assert f"; lost {len(verdict.lost_moves)}, doubled 1 (" in verdict.summary()


def test_the_same_move_accepted_twice_at_one_ply_is_one_move_answered_as_its_retry(
    run: tuple[Tally, Ledger, ReadBack],
) -> None:
    _, ledger, held = run
    doctored = dataclasses.replace(ledger, moves=[*ledger.moves, ledger.moves[0]])
    assert check(doctored, held).clean


def test_the_ledger_check_reports_two_different_answers_accepted_for_one_step_as_doubled(
    run: tuple[Tally, Ledger, ReadBack],
) -> None:
    _, ledger, held = run
    answer = ledger.answers[0]
    other = AcceptedAnswer(answer.form_id, answer.step, {key: "another user's" for key in answer.data})
    verdict = check(dataclasses.replace(ledger, answers=[*ledger.answers, other]), held)
    assert [line.split(":")[0] for line in verdict.doubled_answers] == [f"{answer.form_id} step {answer.step}"]
    assert not verdict.clean


def test_the_ledger_check_reports_a_stored_ply_no_accepted_call_played_as_doubled(
    run: tuple[Tally, Ledger, ReadBack],
) -> None:
    _, ledger, held = run
    game_id, history = next((g, h) for g, h in held.games.items() if h)
    doctored = ReadBack({**held.games, game_id: [*history, history[-1]]}, held.forms)
    verdict = check(ledger, doctored)
    assert (len(verdict.doubled_moves), verdict.lost_moves) == (1, [])
    assert verdict.doubled_moves[0].startswith(f"{game_id} ply {len(history)}:")


def test_the_ledger_check_reports_an_accepted_move_missing_from_its_game_as_lost(
    run: tuple[Tally, Ledger, ReadBack],
) -> None:
    _, ledger, held = run
    move = ledger.moves[-1]
    history = held.games[move.game_id]
    doctored = ReadBack({**held.games, move.game_id: history[: move.ply]}, held.forms)
    verdict = check(ledger, doctored)
    assert f"{move.game_id} ply {move.ply}: {move.uci} accepted, nothing stored" in verdict.lost_moves
    assert verdict.doubled_moves == []


def test_the_ledger_check_reports_an_accepted_answer_the_form_does_not_hold_as_lost(
    run: tuple[Tally, Ledger, ReadBack],
) -> None:
    _, ledger, held = run
    answer = ledger.answers[0]
    steps, data = held.forms[answer.form_id]
    assert data is not None
    changed = {**data, **{key: "something else" for key in answer.data}}
    verdict = check(ledger, ReadBack(held.games, {**held.forms, answer.form_id: (steps, changed)}))
    assert [line.split(":")[0] for line in verdict.lost_answers] == [f"{answer.form_id} step {answer.step}"]
    pending = check(ledger, ReadBack(held.games, {**held.forms, answer.form_id: (0, None)}))
    assert len(pending.lost_answers) == 3  # a form left unanswered loses every accepted step


def test_a_move_whose_answer_was_lost_is_sent_again_and_counted_once(url: str) -> None:
    plan = Plan(users=2, deadline=None, sessions=2, seed=3, moves_per_game=6)
    tally, ledger = asyncio.run(drive(url, plan, connect=LosingAnswers))
    verdict = check(ledger, asyncio.run(read_back(url, ledger)))
    assert verdict.clean, verdict.lost_moves + verdict.doubled_moves
    assert tally.outcomes["chess_move"]["transport:ConnectionResetError"] == len(LosingAnswers.lost) >= 2
    # Each lost answer's move landed once: sent again with its expectedPly, it answered as before, not a 2nd move.
    accepted = [(m.game_id, m.ply, m.uci) for m in ledger.moves]
    for lost in LosingAnswers.lost:
        assert accepted.count((lost["gameId"], lost["expectedPly"], lost["move"])) == 1
    assert len(set(accepted)) == len(accepted)
