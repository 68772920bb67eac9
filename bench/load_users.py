"""Virtual users for `make load`: each is the official MCP client (two of them, like a user with two tabs open)
playing chess games (against a friend and against the engine, two moves racing at one ply now and then) and
answering three-step forms, until a deadline or a count of sessions. Every call is timed and its outcome kept
(success, or the error's code); every accepted move and answer goes into the ledger (load_ledger.py), which is
checked against what the server's own tools read back at the end.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import chess
from mcp import Client
from mcp.client import advertise
from widget_mcp.apps.forms.answer_keys import ANSWER_KEY_META
from widget_mcp.toolkit.call import APPS_EXTENSION
from widget_mcp.toolkit.widgets import APP_MIME_TYPE

from bench.load_ledger import AcceptedAnswer, AcceptedMove, Ledger, ReadBack

MOVES_PER_GAME = 12  # the user's own moves (both colours' against a friend)
RACE_EVERY = 4  # in a game against a friend, every 4th ply is two different moves sent at once from both tabs
FORM_STEPS = 3


@dataclass
class Tally:
    """Per tool: each call's latency (seconds) and outcome (`ok` or an error code)."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    outcomes: dict[str, dict[str, int]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(int)))

    def add(self, tool: str, seconds: float, outcome: str) -> None:
        self.latencies[tool].append(seconds)
        self.outcomes[tool][outcome] += 1

    async def call(self, tab: Any, tool: str, arguments: dict[str, Any], meta: dict[str, Any]) -> Any:
        """`tool` called on `tab` (a connection), timed and its outcome counted: `ok`, the error's code, or
        `transport:…` for a connection that failed (raised again)."""
        start = time.perf_counter()
        try:
            result = await tab.call_tool(tool, arguments, meta=meta)
        except Exception as exc:
            self.add(tool, time.perf_counter() - start, f"transport:{type(exc).__name__}")
            raise
        self.add(tool, time.perf_counter() - start, error_code(result) or "ok")
        return result


@dataclass
class Plan:
    users: int
    deadline: float | None  # monotonic seconds; None: run `sessions` each
    sessions: int = 0  # per user, when there is no deadline
    seed: int = 0
    moves_per_game: int = MOVES_PER_GAME

    def going(self, done: int) -> bool:
        """Whether a user that has begun `done` sessions begins another."""
        return done < self.sessions if self.deadline is None else time.monotonic() < self.deadline


def error_code(result: Any) -> str | None:
    if not result.is_error:
        return None
    meta = result.meta or {}
    error = meta.get("error") if isinstance(meta, dict) else None
    return str(error.get("code")) if isinstance(error, dict) else "error_without_code"


class Broken(Exception):
    """A tab's connection failed mid-call: the session ends, the user reconnects and settles what was in flight."""


OnAccepted = Callable[[Any], None]
# How a user opens a connection (a tab): the official client; tests wrap it to lose answers on purpose.
Connect = Callable[[str], Any]
# What a widget host declares (the MCP Apps extension): the server then lists the widgets' own tools (submit_form),
# so the client validates their results against their output schemas instead of listing again before each one.
MCP_APPS = advertise(APPS_EXTENSION, {"mimeTypes": [APP_MIME_TYPE]})


def widget_host(url: str) -> Client:
    """A tab of a host that shows widgets: the official client, declaring MCP Apps."""
    return Client(url, extensions=[MCP_APPS])


# Calls safe to send again after a failure whose outcome is unknown: a move with its expectedPly is applied at most
# once (a retry that already landed answers the same result), an answer to a form step replaces itself.
RETRIED = ("chess_move", "submit_form")


class User:
    def __init__(
        self, index: int, url: str, tally: Tally, ledger: Ledger, rng: random.Random, connect: Connect = widget_host
    ) -> None:
        self.index = index
        self.connect = connect
        # A ChatGPT user: its subject, and the display signal with which forms are shown in their widget.
        self.me = {"openai/subject": f"load-user-{index}", "openai/locale": "en-US"}
        self.url = url
        self.tally = tally
        self.ledger = ledger
        self.rng = rng
        self.tabs: list[Any] = []
        # Calls sent whose answer never came (the connection failed): settled by a retry once reconnected.
        self.in_flight: list[tuple[str, dict[str, Any], OnAccepted | None]] = []

    async def call(self, tab: int, tool: str, arguments: dict[str, Any], on_ok: OnAccepted | None = None) -> Any:
        entry = (tool, arguments, on_ok)
        self.in_flight.append(entry)
        try:
            result = await self.tally.call(self.tabs[tab], tool, arguments, self.me)
        except Exception as exc:  # a transport failure (counted) ends this connection
            raise Broken from exc
        self.in_flight.remove(entry)
        if on_ok is not None and not result.is_error:
            on_ok(result)
        return result

    async def run(self, plan: Plan) -> None:
        done = 0
        while plan.going(done):
            try:
                async with self.connect(f"{self.url}/mcp") as first, self.connect(f"{self.url}/mcp") as second:
                    self.tabs = [first, second]
                    await self.settle()
                    while plan.going(done):
                        kind = (done + self.index) % 3  # users start on different kinds: a short run has all three
                        done += 1
                        if kind == 0:
                            await self.play("human", plan)
                        elif kind == 1:
                            await self.play("engine", plan)
                        else:
                            await self.answer_form()
                    return
            except (Exception, BaseExceptionGroup) as exc:
                if isinstance(exc, BaseExceptionGroup) and not exc.subgroup(Exception):
                    raise
                self.tally.add("(reconnect)", 0.0, f"transport:{type(exc).__name__}")
        async with self.connect(f"{self.url}/mcp") as tab:
            self.tabs = [tab, tab]
            await self.settle()

    async def settle(self) -> None:
        """Send again what was in flight when a connection failed, where that is safe (RETRIED), so the ledger
        knows whether it landed; anything else (a new game, a new form) is dropped unseen, as a user would."""
        pending, self.in_flight = self.in_flight, []
        for tool, arguments, on_ok in pending:
            if tool in RETRIED:
                await self.call(0, tool, arguments, on_ok)

    async def play(self, opponent: str, plan: Plan) -> None:
        started = await self.call(0, "chess_new_game", {"opponent": opponent})
        if started.is_error:
            return
        game_id = started.structured_content["gameId"]
        self.ledger.games[game_id] = self.me["openai/subject"]
        board, ply = chess.Board(), 0
        for turn in range(plan.moves_per_game):
            if board.is_game_over() or (plan.deadline is not None and time.monotonic() >= plan.deadline):
                break
            legal = sorted(m.uci() for m in board.legal_moves)
            if opponent == "human" and turn % RACE_EVERY == RACE_EVERY - 1 and len(legal) > 1:
                played = await self.race(game_id, ply, self.rng.sample(legal, 2))
            else:
                played = await self.move(0, game_id, ply, self.rng.choice(legal))
            if played is None:
                # Refused or lost the race: learn where the game stands, as a widget would.
                shown = await self.call(0, "chess_show_game", {"gameId": game_id})
                if shown.is_error:
                    return
                board, ply = position_of(shown)
                continue
            board, ply = played
        await self.call(1, "chess_show_game", {"gameId": game_id})

    async def move(self, tab: int, game_id: str, ply: int, uci: str) -> tuple[chess.Board, int] | None:
        def accepted(result: Any) -> None:
            replied = result.structured_content["ply"] == ply + 2
            self.ledger.moves.append(AcceptedMove(game_id, ply, uci, replied))

        args = {"gameId": game_id, "move": uci, "expectedPly": ply}
        result = await self.call(tab, "chess_move", args, accepted)
        return None if result.is_error else position_of(result)

    async def race(self, game_id: str, ply: int, moves: list[str]) -> tuple[chess.Board, int] | None:
        """Both tabs move at once at the same ply; the server must take exactly one (the other: conflict)."""
        async with asyncio.TaskGroup() as group:  # one failing cancels the other: both stay in flight to settle
            tasks = [group.create_task(self.move(tab, game_id, ply, uci)) for tab, uci in enumerate(moves)]
        return next((b for b in (t.result() for t in tasks) if b is not None), None)

    async def answer_form(self) -> None:
        token = f"{self.me['openai/subject']}-{self.rng.getrandbits(48):x}"
        asked = await self.call(0, "ask_question", {"question": step_schema(0), "metadata": form_chain(1)})
        if asked.is_error:
            return
        form_id = asked.structured_content["formId"]
        key = answer_key(asked)
        self.ledger.forms[form_id] = self.me["openai/subject"]
        for step in range(FORM_STEPS):
            data = {f"answer{step}": f"{token}-{step}"}

            def accepted(_: Any, step: int = step, data: dict[str, str] = data) -> None:
                self.ledger.answers.append(AcceptedAnswer(form_id, step, data))

            answers = {"formId": form_id, "data": data, "step": step, "answerKey": key}
            sent = await self.call(1, "submit_form", answers, accepted)
            if sent.is_error:
                break
        await self.call(0, "get_form_response", {"formId": form_id})


def answer_key(result: Any) -> str | None:
    """The key the form's widget answers with (the result's `_meta`, as hosts hand it to the widget)."""
    key = (result.meta or {}).get(ANSWER_KEY_META)
    return key if isinstance(key, str) else None


def step_schema(step: int) -> dict[str, Any]:
    name = f"answer{step}"
    return {"type": "object", "properties": {name: {"type": "string", "maxLength": 100}}, "required": [name]}


def form_chain(first: int) -> dict[str, Any]:
    """`metadata` carrying the steps from `first` on, each in the one before's `next`."""
    chain: dict[str, Any] = {}
    for step in reversed(range(first, FORM_STEPS)):
        chain = {"next": {"title": f"Step {step + 1}", "schema": step_schema(step), **chain}}
    return chain


def position_of(result: Any) -> tuple[chess.Board, int]:
    """The game a result shows: a success's structuredContent, or a conflict's (it carries the current game)."""
    content = result.structured_content
    return chess.Board(content["fen"]), int(content["ply"])


async def drive(url: str, plan: Plan, connect: Connect = widget_host) -> tuple[Tally, Ledger]:
    tally, ledger = Tally(), Ledger()
    users = [User(i, url, tally, ledger, random.Random(plan.seed * 100_003 + i), connect) for i in range(plan.users)]
    await asyncio.gather(*(user.run(plan) for user in users))
    return tally, ledger


async def read_back(url: str, ledger: Ledger) -> ReadBack:
    """Every game's moves and every form's answers, through the server's own tools, each asked by its owner."""
    games: dict[str, list[str]] = {}
    forms: dict[str, tuple[int, dict[str, Any] | None]] = {}
    async with widget_host(f"{url}/mcp") as client:
        for game_id, subject in sorted(ledger.games.items()):
            me = {"openai/subject": subject}
            shown = await client.call_tool("chess_show_game", {"gameId": game_id}, meta=me)  # type: ignore[arg-type]
            if not shown.is_error:
                games[game_id] = _uci_history(shown.meta or {})
        for form_id, subject in sorted(ledger.forms.items()):
            me = {"openai/subject": subject}
            got = await client.call_tool("get_form_response", {"formId": form_id}, meta=me)  # type: ignore[arg-type]
            content = got.structured_content or {}
            if got.is_error:
                continue
            if content.get("type") == "dgui_response":
                forms[form_id] = (content["steps"], content.get("data") or {})
            else:
                forms[form_id] = (content.get("step") or 0, None)
    return ReadBack(games, forms)


def _uci_history(meta: dict[str, Any]) -> list[str]:
    board = chess.Board()
    moves = []
    for san in meta.get("moveHistory", []):
        move = board.parse_san(san)
        moves.append(move.uci())
        board.push(move)
    return moves
