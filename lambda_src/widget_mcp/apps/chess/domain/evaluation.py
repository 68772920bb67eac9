"""Static evaluation in centipawns: material plus piece-square bonuses.

The square bonuses are a few rules of thumb written as formulas (centralise knights, push centre pawns,
rooks to the seventh, king tucked away in the middlegame and central in the endgame) rather than typed grids.
Tables are indexed [colour][piece type][square] with python-chess's colours (False=black, True=white).
"""

from __future__ import annotations

from collections.abc import Callable

import chess

PIECE_VALUES = (0, 100, 320, 330, 500, 900, 0)  # by piece type; the king is priceless, so 0 here
_PHASE_FULL = 24  # knights and bishops count 1, rooks 2, queens 4: 24 with all pieces on
_BISHOP_PAIR = 30

SquareBonus = Callable[[int, int], int]  # (file, rank counted from the owner's side) -> centipawns


def _centrality(file: int, rank: int) -> int:
    """0 in the corners up to 6 on the four centre squares."""
    return 6 - max(3 - file, file - 4) - max(3 - rank, rank - 4)


def _pawn(file: int, rank: int) -> int:
    advance = (0, 0, 4, 10, 20, 35, 60, 0)[rank]
    centre = {3: 12, 4: 12, 2: 5, 5: 5}.get(file, 0) if rank in (3, 4) else 0
    home = -8 if file in (3, 4) and rank == 1 else 0  # unmoved centre pawns block the bishops
    shield = 5 if file not in (3, 4) and rank == 1 else 0  # flank pawns at home guard a castled king
    return advance + centre + home + shield


def _knight(file: int, rank: int) -> int:
    return 4 * _centrality(file, rank) - 14 - (6 if rank == 0 else 0)


def _bishop(file: int, rank: int) -> int:
    diagonal = 6 if file in (rank, 7 - rank) else 0
    return 2 * _centrality(file, rank) - 4 + diagonal - (8 if rank == 0 else 0)


def _rook(file: int, rank: int) -> int:
    return (20 if rank == 6 else 0) + (4 if file in (3, 4) else 0)


def _queen(file: int, rank: int) -> int:
    return _centrality(file, rank) - 3


def _king_middlegame(file: int, rank: int) -> int:
    if rank == 0:
        return {1: 18, 2: 18, 6: 18, 0: 8, 7: 8}.get(file, 0)
    return -8 if rank == 1 else -20 - 8 * rank


def _king_endgame(file: int, rank: int) -> int:
    return 6 * _centrality(file, rank) - 18


def _nothing(file: int, rank: int) -> int:
    return 0


def _table(value: int, bonus: SquareBonus, color: chess.Color) -> list[int]:
    def own_rank(square: int) -> int:
        rank = chess.square_rank(square)
        return rank if color == chess.WHITE else 7 - rank

    return [value + bonus(chess.square_file(sq), own_rank(sq)) for sq in chess.SQUARES]


def _tables(color: chess.Color) -> list[list[int]]:
    bonuses: list[SquareBonus] = [_nothing, _pawn, _knight, _bishop, _rook, _queen]  # type 0 is no piece
    tables = [_table(PIECE_VALUES[pt], bonuses[pt], color) for pt in range(6)]
    tables.append([0] * 64)  # kings are scored separately, by game phase
    return tables


TABLES = [_tables(chess.BLACK), _tables(chess.WHITE)]
KING_MIDDLEGAME = [_table(0, _king_middlegame, chess.BLACK), _table(0, _king_middlegame, chess.WHITE)]
KING_ENDGAME = [_table(0, _king_endgame, chess.BLACK), _table(0, _king_endgame, chess.WHITE)]


def material_and_squares(board: chess.Board) -> int:
    """Material plus square bonuses of everything but the kings, from white's side."""
    total = 0
    for color, sign in ((chess.WHITE, 1), (chess.BLACK, -1)):
        tables = TABLES[color]
        for piece_type in range(chess.PAWN, chess.KING):
            table = tables[piece_type]
            total += sign * sum(table[sq] for sq in chess.scan_forward(board.pieces_mask(piece_type, color)))
    return total


def kings_and_pairs(board: chess.Board) -> int:
    """King placement blended by game phase, plus the bishop pair, from white's side.

    Kept out of the incremental score because it depends on the whole board, not on one move.
    """
    minors = (board.knights | board.bishops).bit_count()
    phase = min(_PHASE_FULL, minors + 2 * board.rooks.bit_count() + 4 * board.queens.bit_count())
    total = 0
    for color, sign in ((chess.WHITE, 1), (chess.BLACK, -1)):
        king = (board.kings & board.occupied_co[color]).bit_length() - 1
        middle, end = KING_MIDDLEGAME[color][king], KING_ENDGAME[color][king]
        total += sign * (middle * phase + end * (_PHASE_FULL - phase)) // _PHASE_FULL
        if (board.bishops & board.occupied_co[color]).bit_count() >= 2:
            total += sign * _BISHOP_PAIR
    return total


def evaluate(board: chess.Board) -> int:
    """The whole static evaluation from the side to move's point of view."""
    white = material_and_squares(board) + kings_and_pairs(board)
    return white if board.turn == chess.WHITE else -white


def move_delta(board: chess.Board, move: chess.Move) -> int:
    """How much `move` changes material_and_squares for the side making it; call before pushing the move."""
    us = board.turn
    origin, target = move.from_square, move.to_square
    piece = board.piece_type_at(origin) or chess.PAWN
    tables = TABLES[us]
    if piece == chess.KING:
        delta = 0
        if target - origin == 2:  # castling short: the rook goes from the h-file to the f-file
            delta = tables[chess.ROOK][origin + 1] - tables[chess.ROOK][origin + 3]
        elif origin - target == 2:  # castling long: a-file to d-file
            delta = tables[chess.ROOK][origin - 1] - tables[chess.ROOK][origin - 4]
    else:
        delta = tables[move.promotion or piece][target] - tables[piece][origin]
    victim = board.piece_type_at(target)
    if victim:
        delta += TABLES[not us][victim][target]
    elif piece == chess.PAWN and target == board.ep_square:
        delta += TABLES[not us][chess.PAWN][target - 8 if us == chess.WHITE else target + 8]
    return delta
