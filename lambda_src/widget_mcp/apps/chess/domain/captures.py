"""Which pieces each side has taken, worked out move by move as the game is played or replayed.

`captured["white"]` lists the black pieces white has taken (and the reverse), as lowercase letters in the
order they were taken. A promoted piece counts as what it became: taking a promoted queen adds "q".
Pieces missing from a FEN start are not counted: only captures made in this game are.
"""

from __future__ import annotations

import chess

from widget_mcp.apps.chess.domain.terms import Color


def captured_piece(board: chess.Board, move: chess.Move) -> chess.PieceType | None:
    """The type of piece `move` removes, read before it is pushed (en passant takes a pawn off another square)."""
    if board.is_en_passant(move):
        return chess.PAWN
    if board.is_castling(move):  # never a capture, whichever square python-chess names as the target
        return None
    return board.piece_type_at(move.to_square)


def empty_captures() -> dict[Color, list[str]]:
    return {"white": [], "black": []}
