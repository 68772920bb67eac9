"""Soak: eight official MCP clients race over HTTP against `python -m widget_mcp.local` (moto embedded on
loopback). No accepted move or answer is lost or doubled, every loser hears `conflict` (or the contract's
refusal), and nothing fails on the server."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import boto3
import pytest
from form_keys import SHOWS_WIDGETS, keep_key, keyed
from mcp import Client
from mcp_types import CallToolResult
from tool_results import error_of, error_state, structured
from widget_mcp.local.process import LocalServer, local_server

TABLE = "soak-state"
CLIENTS = 8
ATTEMPTS = 50
DEADLINE_SECONDS = 40
MODES = ["legacy", "2026-07-28"]  # half the clients speak each protocol era
FORM = {
    "type": "object",
    "properties": {"name": {"type": "string", "title": "Name"}, "seats": {"type": "integer", "minimum": 1}},
    "required": ["name", "seats"],
}


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    # Every call is logged: keep all of a module's lines, for quiet_server to read.
    with local_server(TABLE, keep=100_000) as running:
        yield running


@pytest.fixture
def quiet_server(server: LocalServer) -> Iterator[LocalServer]:
    """The server, checked after the test for failures it logged (a 5xx or a masked internal error)."""
    start = server.log.seen
    yield server
    assert server.proc.poll() is None, "the local server died"
    logged = server.log.since(start)
    for sign in ("Traceback", "internal_error", '"level":"ERROR"', "Internal Server Error"):
        assert sign not in logged, logged


def error_code(result: CallToolResult) -> str | None:
    return error_of(result)["code"] if result.is_error else None


@dataclass
class Seen:
    """The game as a client last saw it."""

    ply: int
    status: str
    legal: list[str]

    @classmethod
    def of(cls, result: CallToolResult) -> Seen:
        state, meta = (error_state(result) if result.is_error else structured(result)), result.meta or {}
        return cls(state["ply"], state["status"], sorted(meta["legalMoves"]))


@dataclass
class Tally:
    attempts: int = 0
    successes: int = 0
    conflicts: int = 0
    retries: int = 0
    # ply → every SAN a success reported for that ply (must be one each)
    played: dict[int, set[str]] = field(default_factory=dict)
    refusals: list[str | None] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.attempts += other.attempts
        self.successes += other.successes
        self.conflicts += other.conflicts
        self.retries += other.retries
        for ply, sans in other.played.items():
            self.played.setdefault(ply, set()).update(sans)
        self.refusals += other.refusals


async def make_moves(url: str, mode: str, meta: dict[str, str], game_id: str, seed: int) -> Tally:
    """Up to ATTEMPTS moves with expectedPly, each legal in the position last seen; a conflict refreshes it."""
    rng = random.Random(seed)
    tally = Tally()
    async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
        seen = Seen.of(await client.call_tool("chess_show_game", {"gameId": game_id}, meta=meta))
        for _ in range(ATTEMPTS):
            if seen.status != "active":
                break
            args = {"gameId": game_id, "move": rng.choice(seen.legal), "expectedPly": seen.ply}
            tally.attempts += 1
            result = await client.call_tool("chess_move", args, meta=meta)
            if error_code(result) == "conflict":
                tally.conflicts += 1
                seen = Seen.of(result)  # the conflict carries the current game
                continue
            if result.is_error:
                tally.refusals.append(error_code(result))
                break
            tally.successes += 1
            state = structured(result)
            assert (state["ply"], state["lastMove"]["uci"]) == (args["expectedPly"] + 1, args["move"])
            tally.played.setdefault(args["expectedPly"], set()).add(state["lastMove"]["san"])
            if rng.random() < 0.2:  # a client that lost the answer sends the same request again
                tally.retries += 1
                again = await client.call_tool("chess_move", args, meta=meta)
                assert structured(again) == state
            seen = Seen.of(result)
    return tally


async def new_game(url: str, meta: dict[str, str]) -> str:
    async with Client(url, mode="legacy") as client:
        return str(structured(await client.call_tool("chess_new_game", {}, meta=meta))["gameId"])


async def history(url: str, meta: dict[str, str], game_id: str) -> list[str]:
    async with Client(url, mode="legacy") as client:
        shown = await client.call_tool("chess_show_game", {"gameId": game_id}, meta=meta)
    assert shown.meta is not None
    return list(shown.meta["moveHistory"])


async def race(jobs: list[Any]) -> list[Any]:
    results: list[Any] = [None] * len(jobs)

    async def run(index: int) -> None:
        results[index] = await jobs[index]()

    with anyio.fail_after(DEADLINE_SECONDS):
        async with anyio.create_task_group() as group:
            for index in range(len(jobs)):
                group.start_soon(run, index)
    return results


async def test_eight_clients_racing_on_one_game_over_http_lose_no_move_double_none_and_losers_get_conflict(
    quiet_server: LocalServer,
) -> None:
    url, me = f"{quiet_server.base}/mcp", {"openai/subject": "soak-shared"}
    game_id = await new_game(url, me)

    def client_job(seed: int) -> Any:
        return lambda: make_moves(url, MODES[seed % 2], me, game_id, seed)

    tallies = await race([client_job(seed) for seed in range(CLIENTS)])

    total = Tally()
    for tally in tallies:
        total.add(tally)
    final = await history(url, me, game_id)
    assert all(len(sans) == 1 for sans in total.played.values()), total.played
    assert final == [next(iter(total.played[ply])) for ply in range(len(final))]
    assert sorted(total.played) == list(range(len(final)))
    assert total.refusals == []
    # Every attempt either moved the game, replayed a move already there (same move, same ply), or conflicted.
    assert total.attempts == total.successes + total.conflicts
    assert total.successes >= len(final)
    assert total.conflicts > 0
    print(  # the soak's figures, shown with -s
        f"one game: {total.attempts} attempts, {len(final)} accepted, {total.successes - len(final)} same-move "
        f"replays, {total.conflicts} conflicts, {total.retries} retries of an answered move"
    )


async def test_eight_clients_each_playing_their_own_game_over_http_have_every_move_accepted_once(
    quiet_server: LocalServer,
) -> None:
    url = f"{quiet_server.base}/mcp"
    players = [{"openai/subject": f"soak-player-{n}"} for n in range(CLIENTS)]
    game_ids = [await new_game(url, me) for me in players]

    def client_job(seed: int) -> Any:
        return lambda: make_moves(url, MODES[seed % 2], players[seed], game_ids[seed], seed)

    tallies = await race([client_job(seed) for seed in range(CLIENTS)])

    for me, game_id, tally in zip(players, game_ids, tallies, strict=True):
        final = await history(url, me, game_id)
        assert (tally.conflicts, tally.refusals) == (0, [])
        assert tally.successes == tally.attempts == len(final) > 0
        assert final == [next(iter(tally.played[ply])) for ply in range(len(final))]


@dataclass
class Submission:
    client: int
    data: dict[str, Any]
    result: CallToolResult | None = None


def stored_versions(server: LocalServer, subject: str, form_id: str) -> int:
    """The form's version in the table itself: 1 when asked, one more per write."""
    aws = re.search(r"AWS \(moto\)\s+(\S+)", "".join(server.output))
    assert aws is not None
    dynamodb = boto3.client(
        "dynamodb", endpoint_url=aws.group(1), region_name="us-east-1", aws_access_key_id="t", aws_secret_access_key="t"
    )
    key = {"pk": {"S": f"USER#openai:{subject}"}, "sk": {"S": f"FORM#{form_id}"}}
    return int(dynamodb.get_item(TableName=TABLE, Key=key, ConsistentRead=True)["Item"]["v"]["N"])


async def test_eight_clients_submitting_one_form_at_once_store_exactly_one_answer(
    quiet_server: LocalServer,
) -> None:
    url, subject = f"{quiet_server.base}/mcp", "soak-forms"
    # As ChatGPT calls: the form is shown in its widget, which answers with the key it got (in either era).
    me = {"openai/subject": subject, **SHOWS_WIDGETS}
    outcomes: Counter[str] = Counter()
    rounds = 12
    for round_no in range(rounds):
        async with Client(url, mode="legacy") as asker:
            form_id = structured(keep_key(await asker.call_tool("ask_question", {"question": FORM}, meta=me)))["formId"]
        shared = {"name": f"shared {round_no}", "seats": 2}
        # Half the clients send the same answer; the others each send their own.
        subs = [Submission(n, shared if n % 2 == 0 else {"name": f"client {n}", "seats": n}) for n in range(CLIENTS)]

        def submit(sub: Submission, form_id: str = form_id) -> Any:
            async def job() -> None:
                async with Client(url, mode=MODES[sub.client % 2]) as client:  # type: ignore[arg-type]
                    args = keyed({"formId": form_id, "data": sub.data})
                    sub.result = await client.call_tool("submit_form", args, meta=me)

            return job

        await race([submit(sub) for sub in subs])

        async with Client(url, mode="legacy") as reader:
            stored = structured(await reader.call_tool("get_form_response", {"formId": form_id}, meta=me))
        assert (stored["type"], stored["complete"]) == ("dgui_response", True)
        winner = stored["data"]
        assert stored_versions(quiet_server, subject, form_id) == 2  # asked, then answered once
        for sub in subs:
            assert sub.result is not None
            if sub.data == winner:
                assert structured(sub.result) == {
                    "type": "dgui_response",
                    "formId": form_id,
                    "data": winner,
                    "step": 0,
                    "steps": 1,
                    "complete": True,
                    "next": None,
                }
                outcomes["same answer"] += 1
            else:
                refusal = structured(sub.result)
                assert (refusal["type"], error_of(sub.result)["code"]) == ("dgui_error", "already_answered")
                assert refusal["payload"] == sub.data
                outcomes["refused"] += 1
    assert sum(outcomes.values()) == rounds * CLIENTS
    print(f"forms: {rounds} forms x {CLIENTS} clients: {dict(outcomes)}")
