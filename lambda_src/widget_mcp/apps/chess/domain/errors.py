"""Errors of the chess domain.

All subclass ValueError and keep the offending input as attributes, in the style of python-chess's own errors.
`code` is a stable snake_case identifier the tool layer can hand to callers; the message is a sentence for people.
"""

from __future__ import annotations


class ChessError(ValueError):
    """Base class: something about a chess request cannot be honoured."""

    code: str = "chess_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidMove(ChessError):
    """The move cannot be read as SAN, UCI or from/to squares (with a promotion piece where one is needed)."""

    code = "invalid_move"

    def __init__(self, move: str, reason: str) -> None:
        super().__init__(f"{move or 'An empty move'} cannot be read as a move: {reason}.")
        self.move = move
        self.reason = reason


class IllegalMove(ChessError):
    """The move is well formed but the rules do not allow it in this position."""

    code = "illegal_move"

    def __init__(self, move: str, color: str, fen: str) -> None:
        super().__init__(f"{move} is not a legal move for {color} in this position.")
        self.move = move
        self.color = color
        self.fen = fen


class GameOver(ChessError):
    """A move (or a resignation, or an engine search) was asked of a game that has already ended."""

    code = "game_over"

    def __init__(
        self,
        status: str,
        *,
        winner: str | None = None,
        draw_reason: str | None = None,
        attempted: str | None = None,
    ) -> None:
        summary = status if draw_reason is None else f"{status} by {draw_reason.replace('_', ' ')}"
        if winner is not None:
            summary = f"{summary}, {winner} won"
        tail = f"; {attempted} cannot be played." if attempted else "."
        super().__init__(f"The game is already over ({summary}){tail}")
        self.status = status
        self.winner = winner
        self.draw_reason = draw_reason
        self.attempted = attempted


class InvalidPosition(ChessError):
    """A FEN given at creation is malformed or describes a position python-chess reports as invalid."""

    code = "invalid_position"

    def __init__(self, fen: str, reason: str) -> None:
        super().__init__(f"{fen!r} is not a playable position: {reason}.")
        self.fen = fen
        self.reason = reason


class InvalidRecord(ChessError):
    """A stored game record cannot be decoded back into a game (wrong shape, or moves that do not replay)."""

    code = "invalid_record"

    def __init__(self, record: object, reason: str) -> None:
        super().__init__(f"The stored game cannot be read: {reason}.")
        self.record = record
        self.reason = reason
