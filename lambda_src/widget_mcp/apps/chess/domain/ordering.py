"""Move lists for the search, best candidates first.

Each move gets one integer key: a rank band (previous best > captures and queen promotions > killers > history)
times _TIE_SPAN, minus the move's code (origin, target, promotion). Sorting on that key is fast, and equal ranks
fall back to a fixed order, which is what keeps the search deterministic.
"""

from __future__ import annotations

from operator import itemgetter

import chess

_RANK_CAPTURE = 1 << 22
_RANK_KILLER = 1 << 21
_TIE_SPAN = 1 << 15  # above the largest move code, 63 * 512 + 63 * 8 + 5
_first = itemgetter(0)

NO_MOVE = -1


def move_code(move: chess.Move) -> int:
    """A move as one small integer: cheap to compare, and the order's tie-break."""
    return move.from_square * 512 + move.to_square * 8 + (move.promotion or 0)


def history_slot(turn: chess.Color, move: chess.Move) -> int:
    return (4096 if turn == chess.WHITE else 0) + move.from_square * 64 + move.to_square


def ordered(
    board: chess.Board,
    moves: list[chess.Move],
    *,
    first: int = NO_MOVE,
    killers: tuple[int, int] = (NO_MOVE, NO_MOVE),
    history: dict[int, int] | None = None,
) -> list[chess.Move]:
    """`moves` best first: `first` (a move code), captures by victim then attacker, killers, quiet moves by history."""
    piece_type_at = board.piece_type_at
    killer_a, killer_b = killers
    history = history or {}
    side = 4096 if board.turn == chess.WHITE else 0
    en_passant = board.ep_square
    keyed: list[tuple[int, chess.Move]] = []
    for move in moves:
        origin, target, promotion = move.from_square, move.to_square, move.promotion
        code = origin * 512 + target * 8 + (promotion or 0)
        victim = piece_type_at(target)
        if code == first:
            rank = _RANK_CAPTURE * 2
        elif victim or promotion == chess.QUEEN:
            # most valuable victim first, then least valuable attacker
            rank = _RANK_CAPTURE + 8 * (victim or 0) - (piece_type_at(origin) or 0) + (promotion or 0)
        elif target == en_passant and piece_type_at(origin) == chess.PAWN:
            rank = _RANK_CAPTURE + 8 * chess.PAWN - chess.PAWN
        elif code == killer_a:
            rank = _RANK_KILLER + 1
        elif code == killer_b:
            rank = _RANK_KILLER
        else:
            rank = min(history.get(side + origin * 64 + target, 0), _RANK_KILLER - 1)
        keyed.append((rank * _TIE_SPAN - code, move))
    keyed.sort(key=_first, reverse=True)
    return [move for _, move in keyed]


def captures(board: chess.Board) -> list[chess.Move]:
    """Pseudo-legal captures and queen promotions, most valuable victim first, then cheapest attacker.

    Built from attack tables rather than python-chess's legal move generator, which would cost more than the
    rest of a quiescence node. The caller drops the rare move that leaves its own king in check, after pushing it.
    """
    us = board.turn
    theirs = board.occupied_co[not us] & ~board.kings
    piece_type_at = board.piece_type_at
    keyed: list[tuple[int, chess.Move]] = []
    # Pawns all at once by shifting their bitboard: (landing squares, distance back to the origin).
    pawns = board.pawns & board.occupied_co[us]
    prey = theirs | (chess.BB_SQUARES[board.ep_square] if board.ep_square is not None else 0)
    if us == chess.WHITE:
        last_rank, forward = chess.BB_RANK_8, -8
        takes = ((((pawns & ~chess.BB_FILE_A) << 7) & prey, -7), (((pawns & ~chess.BB_FILE_H) << 9) & prey, -9))
        pushes = (pawns << 8) & last_rank & ~board.occupied
    else:
        last_rank, forward = chess.BB_RANK_1, 8
        takes = (((pawns & ~chess.BB_FILE_A) >> 9) & prey, 9), (((pawns & ~chess.BB_FILE_H) >> 7) & prey, 7)
        pushes = (pawns >> 8) & last_rank & ~board.occupied
    for target in chess.scan_reversed(pushes):
        origin = target + forward
        rank = 8 * chess.QUEEN  # a new queen is worth about as much as taking one
        keyed.append((rank * _TIE_SPAN - (origin * 512 + target * 8), chess.Move(origin, target, chess.QUEEN)))
    for hits, back in takes:
        for target in chess.scan_reversed(hits):
            origin = target + back
            victim = piece_type_at(target) or chess.PAWN  # the empty en passant square holds a pawn's worth
            promotion = chess.QUEEN if chess.BB_SQUARES[target] & last_rank else None
            rank = 8 * victim - chess.PAWN + (promotion or 0)
            keyed.append((rank * _TIE_SPAN - (origin * 512 + target * 8), chess.Move(origin, target, promotion)))
    attacks_mask = board.attacks_mask
    for origin in chess.scan_reversed(board.occupied_co[us] & ~board.pawns):
        hits = attacks_mask(origin) & theirs
        if hits:
            attacker = piece_type_at(origin) or chess.KING
            for target in chess.scan_reversed(hits):
                rank = 8 * (piece_type_at(target) or chess.PAWN) - attacker
                keyed.append((rank * _TIE_SPAN - (origin * 512 + target * 8), chess.Move(origin, target)))
    keyed.sort(key=_first, reverse=True)
    return [move for _, move in keyed]
