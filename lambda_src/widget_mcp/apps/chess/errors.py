"""Failures of the chess service beyond the rules of chess (those live in the domain)."""

from __future__ import annotations

from widget_mcp.apps.chess.domain import Game


class GameNotFound(ValueError):
    """No game with this id belongs to the caller. Another owner's game is reported the same way, on purpose."""

    code = "game_not_found"

    def __init__(self, game_id: str) -> None:
        super().__init__(f"No game {game_id!r} was found for you. Start one with chess_new_game.")
        self.game_id = game_id


class MoveConflict(ValueError):
    """The game is no longer at the ply the caller expected (another move landed first); `current` is how it is now."""

    code = "conflict"

    def __init__(self, current: Game, expected_ply: int | None) -> None:
        where = f"ply {expected_ply}" if expected_ply is not None else "the position you saw"
        super().__init__(
            f"The game changed since {where}: it is now at ply {current.ply} with {current.turn} to move. "
            "Look at the current position and try again."
        )
        self.current = current
        self.expected_ply = expected_ply
