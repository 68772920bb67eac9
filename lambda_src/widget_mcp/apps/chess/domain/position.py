"""Loading a starting position: the standard one, or a FEN checked for both syntax and legality."""

from __future__ import annotations

import chess

from widget_mcp.apps.chess.domain.errors import InvalidPosition

# python-chess reports problems as bit flags; name the ones people actually hit.
_STATUS_REASONS: tuple[tuple[chess.Status, str], ...] = (
    (chess.STATUS_EMPTY, "the board is empty"),
    (chess.STATUS_NO_WHITE_KING, "white has no king"),
    (chess.STATUS_NO_BLACK_KING, "black has no king"),
    (chess.STATUS_TOO_MANY_KINGS, "a side has more than one king"),
    (chess.STATUS_TOO_MANY_WHITE_PAWNS, "white has more than eight pawns"),
    (chess.STATUS_TOO_MANY_BLACK_PAWNS, "black has more than eight pawns"),
    (chess.STATUS_PAWNS_ON_BACKRANK, "a pawn stands on the first or last rank"),
    (chess.STATUS_TOO_MANY_WHITE_PIECES, "white has more than sixteen pieces"),
    (chess.STATUS_TOO_MANY_BLACK_PIECES, "black has more than sixteen pieces"),
    (chess.STATUS_BAD_CASTLING_RIGHTS, "the castling rights do not match the kings and rooks"),
    (chess.STATUS_INVALID_EP_SQUARE, "the en passant square is impossible"),
    (chess.STATUS_OPPOSITE_CHECK, "the side not to move is in check"),
    (chess.STATUS_TOO_MANY_CHECKERS, "the king is checked by more pieces than any move can give"),
    (chess.STATUS_IMPOSSIBLE_CHECK, "the check could not have come from a legal move"),
)


def load_board(fen: str | None) -> chess.Board:
    """The standard start for None, else the position `fen` describes; raises InvalidPosition."""
    if fen is None:
        return chess.Board()
    try:
        board = chess.Board(fen.strip())
    except ValueError as exc:
        raise InvalidPosition(fen, f"the FEN is malformed ({exc})") from None
    status = board.status()
    if status != chess.STATUS_VALID:
        reasons = [reason for flag, reason in _STATUS_REASONS if status & flag]
        raise InvalidPosition(fen, "; ".join(reasons) or f"python-chess reports status {int(status):#x}")
    return board
