"""`make load SCENARIO=hot`: many users on one game, and some on one form, as a game shared by a whole chat would be.

Every user is the same principal (the game's owner) on a connection of its own. The game players all send a move
at the ply they last saw; the server takes one per ply and answers the others `conflict` with the current game, from
which they race again. A game that ends, or reaches MAX_PLIES, is replaced by a new one, so the hot item stays the
size `make cost` measures a friend's 40-move game at. Every FORM_EVERY-th user instead answers the current step of
one three-step form with answers of its own: one answer per step is taken, the others refused.

What it reports besides `make load`'s table: the accepted and refused counts, the rate of writes to the hot game's
item and to the caller's rate-limit counter (one partition each), set against DynamoDB's 1,000 write units per
second per partition; and the same ledger check (0 lost, 0 doubled), moves and answers.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import chess

from bench.load_ledger import AcceptedAnswer, AcceptedMove, Ledger
from bench.load_users import (
    Connect,
    Tally,
    answer_key,
    error_code,
    form_chain,
    position_of,
    step_schema,
    widget_host,
)

OWNER = {"openai/subject": "load-hot-owner", "openai/locale": "en-US"}
MAX_PLIES = 40  # as make cost's game between two people: the game item stays within one write unit
FORM_EVERY = 4  # users 3, 7, 11, … race on the form; the others on the game
PARTITION_WCU_PER_SECOND = 1000  # DynamoDB's limit per partition (and 3,000 read units)
# Write units per accepted move (bench/cost.py, `chess_move, friend`: 2.00 = the game item, ≤ 1 KB, and the caller's
# rate-limit counter); a call that is refused still updates the counter.
GAME_ITEM_WCU = 1
COUNTER_WCU = 1


@dataclass
class HotPlan:
    users: int
    deadline: float | None  # monotonic seconds; None: `attempts` calls each
    attempts: int = 0
    seed: int = 0


@dataclass
class Hot:
    """The one game and the one form everyone is on, replaced (once, whoever sees it first) when done."""

    game_id: str = ""
    form_id: str = ""
    form_step: int = 0
    form_key: str | None = None
    games: int = 0
    forms: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


@dataclass
class HotCounts:
    moves_accepted: int = 0
    moves_repeated: int = 0  # the same move as another user's at the same ply: one move, answered to both
    moves_refused: int = 0
    answers_accepted: int = 0
    answers_refused: int = 0
    calls: int = 0
    seconds: float = 0.0


Call = Callable[[str, dict[str, Any]], Awaitable[Any]]


async def drive_hot(url: str, plan: HotPlan, connect: Connect = widget_host) -> tuple[Tally, Ledger, HotCounts, Hot]:
    tally, ledger, counts, hot = Tally(), Ledger(), HotCounts(), Hot()
    start = time.monotonic()

    def going(done: int) -> bool:
        return done < plan.attempts if plan.deadline is None else time.monotonic() < plan.deadline

    async def user(index: int) -> None:
        rng = random.Random(plan.seed * 100_003 + index)
        async with connect(f"{url}/mcp") as tab:
            call = _owner_calls(tab, tally, counts)
            done = 0
            if index % FORM_EVERY == FORM_EVERY - 1:
                while going(done):
                    done += 1
                    await answer(call, rng, index)
                return
            seen: tuple[str, chess.Board, int] | None = None
            while going(done):
                done += 1
                seen = await move(call, rng, seen)

    async def new_game(call: Call, ended: str) -> None:
        async with hot.lock:
            if hot.game_id == ended:  # nobody replaced it yet
                started = await call("chess_new_game", {"opponent": "human"})
                hot.game_id = started.structured_content["gameId"]
                ledger.games[hot.game_id] = OWNER["openai/subject"]
                hot.games += 1

    async def move(call: Call, rng: random.Random, seen: tuple[str, chess.Board, int] | None) -> Any:
        game_id = hot.game_id
        if seen is None or seen[0] != game_id:
            shown = await call("chess_show_game", {"gameId": game_id})
            seen = (game_id, *position_of(shown))
        _, board, ply = seen
        if board.is_game_over() or ply >= MAX_PLIES:
            await new_game(call, game_id)
            return None
        uci = rng.choice(sorted(m.uci() for m in board.legal_moves))
        result = await call("chess_move", {"gameId": game_id, "move": uci, "expectedPly": ply})
        code = error_code(result)
        if code is None:
            accepted = AcceptedMove(game_id, ply, uci, False)
            if accepted in ledger.moves:  # another user sent the same move at that ply: answered as its retry
                counts.moves_repeated += 1
            else:
                counts.moves_accepted += 1
            ledger.moves.append(accepted)
            return (game_id, *position_of(result))
        counts.moves_refused += 1
        if code == "conflict":  # it carries the game as it stands
            return (game_id, *position_of(result))
        if code == "game_over":
            await new_game(call, game_id)
        return None

    async def new_form(call: Call, done_with: str) -> None:
        async with hot.lock:
            if hot.form_id == done_with:
                asked = await call("ask_question", {"question": step_schema(0), "metadata": form_chain(1)})
                hot.form_id, hot.form_step = asked.structured_content["formId"], 0
                hot.form_key = answer_key(asked)
                ledger.forms[hot.form_id] = OWNER["openai/subject"]
                hot.forms += 1

    async def answer(call: Call, rng: random.Random, index: int) -> None:
        form_id, step, key = hot.form_id, hot.form_step, hot.form_key
        data = {f"answer{step}": f"user{index}-{rng.getrandbits(32):x}"}
        result = await call("submit_form", {"formId": form_id, "data": data, "step": step, "answerKey": key})
        content = result.structured_content or {}
        if not result.is_error:
            ledger.answers.append(AcceptedAnswer(form_id, step, data))
            counts.answers_accepted += 1
        else:
            counts.answers_refused += 1
            got = await call("get_form_response", {"formId": form_id})
            content = got.structured_content or {}
        if content.get("type") == "dgui_response" and content.get("complete") is True:
            await new_form(call, form_id)
        elif hot.form_id == form_id:
            hot.form_step = max(hot.form_step, _answered(content, step))

    async with connect(f"{url}/mcp") as first:
        hot_calls = _owner_calls(first, tally, counts)
        await new_game(hot_calls, "")
        await new_form(hot_calls, "")
    await asyncio.gather(*(user(i) for i in range(plan.users)))
    counts.seconds = time.monotonic() - start
    return tally, ledger, counts, hot


def _owner_calls(tab: Any, tally: Tally, counts: HotCounts) -> Call:
    async def call(tool: str, arguments: dict[str, Any]) -> Any:
        counts.calls += 1
        return await tally.call(tab, tool, arguments, OWNER)

    return call


def _answered(content: dict[str, Any], tried: int) -> int:
    """The step to answer next, from a submit's result (`step` answered) or a pending read (`step` = answered)."""
    if content.get("type") == "dgui_response":
        return int(content.get("step", tried)) + 1
    return int(content.get("step") or 0)


def partition_lines(counts: HotCounts) -> list[str]:
    """The writes each hot partition took per second, against DynamoDB's per-partition limit."""
    seconds = max(counts.seconds, 1e-9)
    moves = counts.moves_accepted / seconds
    calls = counts.calls / seconds
    game_wcu = moves * GAME_ITEM_WCU
    # A race's loser may have read the same ply and failed the write's condition, which DynamoDB bills as a write.
    worst_wcu = (counts.moves_accepted + counts.moves_refused) / seconds * GAME_ITEM_WCU
    counter_wcu = calls * COUNTER_WCU
    limit = PARTITION_WCU_PER_SECOND
    return [
        f"hot game: {counts.moves_accepted} moves accepted, {counts.moves_refused} refused (conflict: the losing side "
        f"of a race), {counts.moves_repeated} answered as the same move another user made at that ply; "
        f"hot form: {counts.answers_accepted} answers accepted, {counts.answers_refused} refused",
        f"the game's partition took {moves:.1f} writes/s = {game_wcu:.1f} WCU/s ({GAME_ITEM_WCU} WCU a move on a "
        f"game item <= 1 KB), {100 * game_wcu / limit:.2f}% of the {limit:,} WCU/s a partition takes; the whole "
        f"partition would hold {limit // GAME_ITEM_WCU:,} moves/s; at most {worst_wcu:.1f} WCU/s "
        f"({100 * worst_wcu / limit:.2f}%) if every refused move had been a failed conditional write",
        f"the caller's rate-limit counter (one item, every call of this one principal) took {counter_wcu:.1f} "
        f"WCU/s, {100 * counter_wcu / limit:.2f}% of a partition",
    ]
