"""The chess use cases: load a game, apply a move (and the engine's reply), save it once, conditionally.

Retries are safe: a move sent with the `expected_ply` it was meant for, that already landed at that ply,
gets the result it had, not a second move. A move that lost a race gets `MoveConflict` with the game as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from time import perf_counter
from typing import Any

from widget_mcp import StateOwner, VersionConflict
from widget_mcp.apps.chess.domain import ChessError, Color, EngineResult, Game, Opponent, play_engine_reply
from widget_mcp.apps.chess.errors import GameNotFound, MoveConflict
from widget_mcp.apps.chess.repository import GameRepository, GameSummary, StoredGame

ENGINE_NAME = "widget-mcp alpha-beta"


@dataclass(frozen=True)
class EngineBudget:
    max_nodes: int = 20_000
    max_seconds: float | None = 0.5


@dataclass(frozen=True)
class MoveRequest:
    move: str | None = None
    from_square: str | None = None
    to_square: str | None = None
    promotion: str | None = None

    def play_on(self, game: Game) -> None:
        game.play(self.move, from_square=self.from_square, to_square=self.to_square, promotion=self.promotion)


@dataclass(frozen=True)
class GameView:
    """A game as a tool shows it: the game, the engine's last analysis if any, and whether it just moved."""

    game: Game
    analysis: dict[str, Any] | None = None
    engine_replied: bool = False


def _analysis(result: EngineResult, engine_color: Color, seconds: float) -> dict[str, Any]:
    # The engine scores for the side to move (itself); callers read scores from White's side, like PGN tools.
    sign = 1 if engine_color == "white" else -1
    return {
        "engine": ENGINE_NAME,
        "bestMove": result.best_move_uci,
        "bestMoveSan": result.best_move_san,
        "scoreCp": None if result.score_cp is None else sign * result.score_cp,
        "mate": None if result.mate is None else sign * result.mate,
        "depth": result.depth,
        "nodes": result.nodes,
        "seconds": round(seconds, 3),
        "pv": result.principal_variation,
    }


class ChessService:
    def __init__(self, games: GameRepository, budget: EngineBudget | None = None) -> None:
        self._games = games
        self._budget = budget or EngineBudget()

    def new_game(self, owner: StateOwner, *, color: Color, opponent: Opponent, fen: str | None) -> GameView:
        game = Game(self._games.new_id(owner), opponent=opponent, player_color=color, fen=fen)
        analysis = self._engine_reply(game)
        self._games.create(owner, game, analysis)
        return GameView(game, analysis, engine_replied=analysis is not None)

    def show(self, owner: StateOwner, game_id: str) -> GameView:
        stored = self._load(owner, game_id)
        return GameView(stored.game, stored.analysis)

    def list_games(self, owner: StateOwner, limit: int) -> list[GameSummary]:
        """Empty for a caller without identity: its games are reachable by id only, never listed."""
        return self._games.newest(owner, limit)

    def move(self, owner: StateOwner, game_id: str, request: MoveRequest, expected_ply: int | None) -> GameView:
        stored = self._load(owner, game_id)
        if expected_ply is not None and expected_ply != stored.game.ply:
            return self._replay_or_conflict(stored, request, expected_ply)
        game = stored.game
        request.play_on(game)
        analysis = self._engine_reply(game)
        try:
            self._games.save(owner, stored, game, analysis)
        except VersionConflict as exc:
            if exc.current is None:
                raise GameNotFound(game_id) from exc
            current = self._games.from_document(exc.current)
            if expected_ply is None:
                raise MoveConflict(current.game, None) from exc
            return self._replay_or_conflict(current, request, expected_ply)
        return GameView(game, analysis, engine_replied=analysis is not None)

    def resign(self, owner: StateOwner, game_id: str) -> GameView:
        """Against the engine the player resigns; between humans, the side to move does."""
        stored = self._load(owner, game_id)
        game = stored.game
        game.resign(game.player_color if game.opponent == "engine" else game.turn)
        try:
            self._games.save(owner, stored, game, stored.analysis)
        except VersionConflict as exc:
            current = self._games.from_document(exc.current).game if exc.current else None
            if current is None:
                raise GameNotFound(game_id) from exc
            raise MoveConflict(current, None) from exc
        return GameView(game, stored.analysis)

    def _load(self, owner: StateOwner, game_id: str) -> StoredGame:
        stored = self._games.load(owner, game_id)
        if stored is None:
            raise GameNotFound(game_id)
        return stored

    def _engine_reply(self, game: Game) -> dict[str, Any] | None:
        if not game.is_engine_turn or game.engine_color is None:
            return None
        started = perf_counter()
        _, result = play_engine_reply(game, max_nodes=self._budget.max_nodes, max_seconds=self._budget.max_seconds)
        return _analysis(result, game.engine_color, perf_counter() - started)

    def _replay_or_conflict(self, current: StoredGame, request: MoveRequest, expected_ply: int) -> GameView:
        """If `request` is the move `current` holds at `expected_ply`, answer as that move did; else a conflict."""
        game = current.game
        if not 0 <= expected_ply < game.ply:
            raise MoveConflict(game, expected_ply)
        before = game.at_ply(expected_ply)
        try:
            request.play_on(before)
        except ChessError:
            raise MoveConflict(game, expected_ply) from None
        if before.move_history_uci[-1] != game.move_history_uci[expected_ply]:
            raise MoveConflict(game, expected_ply)
        # The engine's reply, if any, was saved in the same write as the move.
        replied = before.is_engine_turn and game.ply > before.ply
        answered_ply = before.ply + (1 if replied else 0)
        if answered_ply == game.ply and game.resigned_by is None:
            return GameView(game, current.analysis, engine_replied=replied)
        # Later moves (or a resignation) followed: answer with the game as that move left it.
        return GameView(game.at_ply(answered_ply), None, engine_replied=replied)
