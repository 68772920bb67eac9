"""Reading a move the way people and programs write it (SAN, UCI, from/to squares) and recording it once played."""

from __future__ import annotations

from dataclasses import dataclass

import chess

from widget_mcp.apps.chess.domain.errors import IllegalMove, InvalidMove
from widget_mcp.apps.chess.domain.terms import color_name

_PROMOTIONS: dict[str, chess.PieceType] = {"q": chess.QUEEN, "r": chess.ROOK, "b": chess.BISHOP, "n": chess.KNIGHT}
_NEEDS_PROMOTION = "a pawn reaching the last rank needs a promotion piece (q, r, b or n)"
_NOT_NOTATION = "it is neither SAN (e.g. Nf3, exd5, O-O, e8=Q) nor UCI (e.g. g1f3, e7e8q)"


@dataclass(frozen=True, slots=True)
class MoveRecord:
    """A move as played: both notations plus the squares, which is what a board widget animates."""

    uci: str
    san: str
    from_square: str
    to_square: str

    def to_dict(self) -> dict[str, str]:
        return {"uci": self.uci, "san": self.san, "from": self.from_square, "to": self.to_square}


def record_move(board: chess.Board, move: chess.Move) -> MoveRecord:
    """Describes `move` in the position before it is pushed (SAN depends on that position)."""
    return MoveRecord(
        uci=move.uci(),
        san=board.san(move),
        from_square=chess.square_name(move.from_square),
        to_square=chess.square_name(move.to_square),
    )


def parse_move(
    board: chess.Board,
    move: str | None = None,
    *,
    from_square: str | None = None,
    to_square: str | None = None,
    promotion: str | None = None,
) -> chess.Move:
    """The legal move meant by the input. From/to squares win over `move`; text is tried as UCI, then SAN.

    Raises InvalidMove when the input cannot be read, IllegalMove when it reads fine but is not allowed here.
    """
    if from_square is not None or to_square is not None:
        return _parse_squares(board, from_square, to_square, promotion)
    if move is None:
        raise InvalidMove("", "give a move in SAN or UCI, or from and to squares")
    if promotion is not None:
        raise InvalidMove(move, "a separate promotion piece goes with from/to squares; write e8=Q or e7e8q instead")
    text = move.strip()
    if not text:
        raise InvalidMove(move, "it is empty")
    try:
        uci = chess.Move.from_uci(text)
    except chess.InvalidMoveError:
        return _parse_san(board, text)
    return _legal(board, uci, text)


def _parse_squares(
    board: chess.Board, from_square: str | None, to_square: str | None, promotion: str | None
) -> chess.Move:
    shown = f"{from_square or '?'}{to_square or '?'}{promotion or ''}"
    if from_square is None or to_square is None:
        raise InvalidMove(shown, "both a from square and a to square are needed")
    try:
        origin = chess.parse_square(from_square.strip().lower())
        target = chess.parse_square(to_square.strip().lower())
    except ValueError:
        raise InvalidMove(shown, "squares are written as a file a-h and a rank 1-8, e.g. e2") from None
    piece = None
    if promotion is not None:
        piece = _PROMOTIONS.get(promotion.strip().lower())
        if piece is None:
            raise InvalidMove(shown, "the promotion piece must be one of q, r, b or n")
    return _legal(board, chess.Move(origin, target, piece), shown)


def _legal(board: chess.Board, move: chess.Move, shown: str) -> chess.Move:
    if not move or move.drop is not None:
        raise InvalidMove(shown, "null moves and piece drops are not part of standard chess")
    if move.promotion is not None and move.promotion not in _PROMOTIONS.values():
        raise InvalidMove(shown, "the promotion piece must be one of q, r, b or n")
    if move.promotion is None and board.is_legal(chess.Move(move.from_square, move.to_square, chess.QUEEN)):
        raise InvalidMove(shown, _NEEDS_PROMOTION)
    try:
        # parse_uci also maps the king-takes-rook castling spelling (e1h1) to e1g1.
        return board.parse_uci(move.uci())
    except chess.IllegalMoveError:
        raise IllegalMove(shown, color_name(board.turn), board.fen()) from None


def _parse_san(board: chess.Board, text: str) -> chess.Move:
    try:
        move = board.parse_san(text)
    except chess.AmbiguousMoveError:
        raise InvalidMove(text, "more than one piece can make it; add the origin file or rank, e.g. Nbd2") from None
    except chess.InvalidMoveError:
        raise InvalidMove(text, _NOT_NOTATION) from None
    except chess.IllegalMoveError:
        if _san_lacks_promotion(board, text):
            raise InvalidMove(text, _NEEDS_PROMOTION) from None
        raise IllegalMove(text, color_name(board.turn), board.fen()) from None
    if not move:  # parse_san reads "--" and "Z0" as null moves
        raise InvalidMove(text, "null moves and piece drops are not part of standard chess")
    return move


def _san_lacks_promotion(board: chess.Board, text: str) -> bool:
    """True for e.g. `e8` or `dxe8+` when the same move with =Q would be legal."""
    bare = text.rstrip("+#")
    if "=" in bare:
        return False
    try:
        board.parse_san(f"{bare}=Q")
    except ValueError:
        return False
    return True
