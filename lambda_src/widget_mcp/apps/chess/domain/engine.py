"""The engine's public face: pick a move for a board or a game within a node budget and an optional time budget.

With `max_seconds=None` the answer depends only on the position (and its history) and `max_nodes`, so the
same request always gets the same move. A time budget makes the search stop earlier on slow machines.
`nodes` counts positions searched below the root and never exceeds `max_nodes` (no slack): the search stops
before entering the node that would go over. The clock is read every 1024 nodes, so a time budget can overrun
by that much work (a few hundredths of a second).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from time import perf_counter

import chess

from widget_mcp.apps.chess.domain.errors import InvalidPosition
from widget_mcp.apps.chess.domain.game import Game
from widget_mcp.apps.chess.domain.moves import MoveRecord
from widget_mcp.apps.chess.domain.outcome import assess, game_over_error
from widget_mcp.apps.chess.domain.search import MATE, MATE_BOUND, Searcher

DEFAULT_MAX_NODES = 20_000


@dataclass(frozen=True, slots=True)
class EngineResult:
    best_move_uci: str
    best_move_san: str
    score_cp: int | None  # centipawns for the side to move; None when `mate` is set
    mate: int | None  # moves to mate: positive if the side to move mates, negative if it gets mated
    depth: int  # last fully searched depth (0: the budget ran out before depth 1 finished)
    nodes: int
    principal_variation: list[str] = field(default_factory=list)  # UCI, starting with best_move_uci


def choose_move(
    position: chess.Board | Game,
    *,
    max_nodes: int = DEFAULT_MAX_NODES,
    max_seconds: float | None = None,
) -> EngineResult:
    """The engine's move for the side to move. Raises GameOver if the game has ended."""
    if max_nodes < 1:
        raise ValueError(f"max_nodes must be at least 1, not {max_nodes}.")
    if max_seconds is not None and not (max_seconds > 0 and math.isfinite(max_seconds)):
        raise ValueError(f"max_seconds must be a positive number of seconds, not {max_seconds}.")
    deadline = None if max_seconds is None else perf_counter() + max_seconds
    board = _playable_board(position)
    searcher = Searcher(board.copy(), max_nodes=max_nodes, deadline=deadline)
    found = searcher.run()
    score_cp, mate = _score(found.score)
    return EngineResult(
        best_move_uci=found.move.uci(),
        best_move_san=board.san(found.move),
        score_cp=score_cp,
        mate=mate,
        depth=found.depth,
        nodes=searcher.nodes,
        principal_variation=[move.uci() for move in found.pv],
    )


def play_engine_reply(
    game: Game,
    *,
    max_nodes: int = DEFAULT_MAX_NODES,
    max_seconds: float | None = None,
) -> tuple[MoveRecord, EngineResult]:
    """Lets the engine move for the side to move in `game` and plays that move. Whose turn it is is the caller's
    business (see `Game.is_engine_turn`)."""
    result = choose_move(game, max_nodes=max_nodes, max_seconds=max_seconds)
    return game.play(result.best_move_uci), result


def _playable_board(position: chess.Board | Game) -> chess.Board:
    if isinstance(position, Game):
        if position.is_over:
            raise game_over_error(position.state)
        return position.recent_board  # back to the last irreversible move: no earlier position can recur
    if position.chess960 or not position.is_valid():  # the search assumes standard castling
        raise InvalidPosition(position.fen(), "the engine plays valid standard chess positions only")
    state = assess(position)
    if state.is_over:
        raise game_over_error(state)
    return position


def _score(score: int) -> tuple[int | None, int | None]:
    if score > MATE_BOUND:
        return None, (MATE - score + 1) // 2
    if score < -MATE_BOUND:
        return None, -((MATE + score) // 2)
    return score, None
