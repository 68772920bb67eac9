"""Alpha-beta search: negamax with principal-variation search, iterative deepening and a quiescence search.

Deterministic when no deadline is given: move order comes from integer keys with a fixed tie-break
(origin, target, promotion), and the transposition table is a plain dict filled in search order.
"""

from __future__ import annotations

from dataclasses import dataclass
from time import perf_counter

import chess

from widget_mcp.apps.chess.domain.evaluation import PIECE_VALUES, kings_and_pairs, material_and_squares, move_delta
from widget_mcp.apps.chess.domain.ordering import NO_MOVE, captures, history_slot, move_code, ordered

MATE = 100_000
MATE_BOUND = MATE - 1_000  # scores beyond this are mates, MATE - plies to go
INFINITY = MATE + 1
MAX_DEPTH = 48
MAX_PLY = 96  # deeper than any depth we reach, with room for check extensions and capture chains
CLOCK_EVERY = 1024  # nodes between deadline checks: perf_counter is cheap but not free

_EXACT, _LOWER, _UPPER = 0, 1, 2
_MARGIN = 200  # square bonuses and king terms a capture can also swing
_QUEENING = PIECE_VALUES[chess.QUEEN] - PIECE_VALUES[chess.PAWN]
_LATE = 3  # moves after this many in the ordering are searched one ply shallower first


Key = tuple[int, int, int, int, int, int, int, bool, int, int | None]
Entry = tuple[int, int, int, int]  # depth, score, bound, code of the best move


class OutOfBudget(Exception):
    """Stops the search when the node or time budget runs out; the iteration in progress is dropped."""


@dataclass(frozen=True, slots=True)
class SearchOutcome:
    move: chess.Move
    score: int  # centipawns for the side to move, or ±(MATE - plies) for a forced mate
    depth: int  # last fully searched depth; 0 when even depth 1 ran out of budget
    pv: list[chess.Move]


def position_key(board: chess.Board) -> Key:
    """Identifies a position for repetitions and the table (white's pieces + all pieces fix every colour)."""
    return (
        board.pawns,
        board.knights,
        board.bishops,
        board.rooks,
        board.queens,
        board.kings,
        board.occupied_co[chess.WHITE],
        board.turn,
        board.castling_rights,
        board.ep_square,
    )


def _bare(board: chess.Board) -> bool:
    """No pawns, rooks or queens and at most one minor piece: nobody can mate."""
    return not (board.pawns | board.rooks | board.queens) and (board.knights | board.bishops).bit_count() <= 1


def _best_gain(board: chess.Board) -> int:
    """An upper bound on what one capture can win: their best piece, plus queening if we can, plus a margin."""
    us = board.turn
    theirs = board.occupied_co[not us]
    gain = PIECE_VALUES[chess.PAWN]
    for piece_type, pieces in ((chess.QUEEN, board.queens), (chess.ROOK, board.rooks), (chess.BISHOP, board.bishops)):
        if pieces & theirs or (piece_type == chess.BISHOP and board.knights & theirs):
            gain = PIECE_VALUES[piece_type]
            break
    if board.pawns & board.occupied_co[us] & (chess.BB_RANK_7 if us == chess.WHITE else chess.BB_RANK_2):
        gain += _QUEENING
    return gain + _MARGIN


def _to_table(score: int, ply: int) -> int:
    # Mates are stored relative to the node, so a hit at another ply reports the right distance.
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


def _from_table(score: int, ply: int) -> int:
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score


class Searcher:
    """One search of one position. Owns `board` and leaves it in an undefined state if the budget runs out."""

    def __init__(self, board: chess.Board, *, max_nodes: int, deadline: float | None) -> None:
        self.board = board
        self.max_nodes = max_nodes
        self.deadline = deadline
        self.nodes = 0
        self.table: dict[Key, Entry] = {}
        self.killers: list[list[int]] = [[NO_MOVE, NO_MOVE] for _ in range(MAX_PLY + 1)]  # move codes
        self.history: dict[int, int] = {}
        self.pv: list[list[chess.Move]] = [[] for _ in range(MAX_PLY + 2)]
        self.path = self._reversible_past()
        self.partial: SearchOutcome | None = None
        white_view = material_and_squares(board)
        self.root_score = white_view if board.turn == chess.WHITE else -white_view

    def _reversible_past(self) -> list[Key]:
        """Positions since the last capture or pawn move: the only earlier ones the search can repeat."""
        board = self.board
        undone: list[chess.Move] = []
        for _ in range(min(board.halfmove_clock, len(board.move_stack))):
            undone.append(board.pop())
        keys: list[Key] = []
        while undone:
            keys.append(position_key(board))
            board.push(undone.pop())
        return keys

    def run(self) -> SearchOutcome:
        board = self.board
        root_key = position_key(board)
        moves = ordered(board, list(board.generate_legal_moves()))
        best: SearchOutcome | None = None
        for depth in range(1, MAX_DEPTH + 1):
            try:
                score, move = self._root(depth, moves, root_key)
            except OutOfBudget:
                break
            best = SearchOutcome(move, score, depth, list(self.pv[0]))
            moves.remove(move)
            moves.insert(0, move)
            if abs(score) > MATE_BOUND and MATE - abs(score) <= depth:
                break  # a forced mate within the horizon; deeper searches only confirm it
        if best is not None:
            return best
        if self.partial is not None:
            return self.partial
        return SearchOutcome(moves[0], self.root_score, 0, [moves[0]])

    def _visit(self) -> None:
        if self.nodes >= self.max_nodes:
            raise OutOfBudget
        self.nodes += 1
        if self.deadline is not None and self.nodes % CLOCK_EVERY == 0 and perf_counter() >= self.deadline:
            raise OutOfBudget

    def _root(self, depth: int, moves: list[chess.Move], root_key: Key) -> tuple[int, chess.Move]:
        board = self.board
        alpha, beta = -INFINITY, INFINITY
        best = moves[0]
        self.path.append(root_key)
        for index, move in enumerate(moves):
            child = -(self.root_score + move_delta(board, move))
            board.push(move)
            if index == 0:
                score = -self._negamax(depth - 1, 1, -beta, -alpha, child)
            else:
                score = -self._negamax(depth - 1, 1, -alpha - 1, -alpha, child)
                if score > alpha:
                    score = -self._negamax(depth - 1, 1, -beta, -alpha, child)
            board.pop()
            if score > alpha:
                alpha, best = score, move
                self.pv[0] = [move, *self.pv[1]]
                if depth == 1:
                    self.partial = SearchOutcome(move, score, 0, list(self.pv[0]))
        self.path.pop()
        return alpha, best

    def _negamax(self, depth: int, ply: int, alpha: int, beta: int, score: int) -> int:
        board = self.board
        self.pv[ply] = []
        clock = board.halfmove_clock
        key = position_key(board)
        if clock >= 100 or (clock >= 4 and key in self.path[-clock:]) or _bare(board):
            return 0
        in_check = board.is_check()
        if in_check:
            depth += 1  # look one ply further through checks so mates are not cut off at the horizon
        if depth <= 0 or ply >= MAX_PLY:
            return self._quiesce(ply, alpha, beta, score)
        self._visit()
        entry = self.table.get(key)
        hint = NO_MOVE
        if entry is not None:
            hint = entry[3]
            if entry[0] >= depth and beta - alpha == 1:  # not in PV nodes: keep the PV whole
                stored, bound = _from_table(entry[1], ply), entry[2]
                if bound == _EXACT or (bound == _LOWER and stored >= beta) or (bound == _UPPER and stored <= alpha):
                    return stored
        moves = list(board.generate_legal_moves())
        if not moves:
            return -MATE + ply if in_check else 0
        alpha_start = alpha
        best_score, best_move = -INFINITY, moves[0]
        self.path.append(key)
        killers = self.killers[ply]
        in_order = ordered(board, moves, first=hint, killers=(killers[0], killers[1]), history=self.history)
        for index, move in enumerate(in_order):
            child = -(score + move_delta(board, move))
            quiet = move.promotion is None and not board.is_capture(move)
            board.push(move)
            if index == 0:
                value = -self._negamax(depth - 1, ply + 1, -beta, -alpha, child)
            else:
                value = alpha + 1
                if quiet and index >= _LATE and depth >= 3 and not in_check and not board.is_check():
                    # late quiet moves rarely matter: a shallower look first, the full one only if it surprises
                    value = -self._negamax(depth - 2, ply + 1, -alpha - 1, -alpha, child)
                if value > alpha:
                    value = -self._negamax(depth - 1, ply + 1, -alpha - 1, -alpha, child)
                if alpha < value < beta:
                    value = -self._negamax(depth - 1, ply + 1, -beta, -alpha, child)
            board.pop()
            if value > best_score:
                best_score, best_move = value, move
                if value > alpha:
                    alpha = value
                    self.pv[ply] = [move, *self.pv[ply + 1]]
                    if value >= beta:
                        if quiet:
                            self._remember_cutoff(move, depth, ply)
                        break
        self.path.pop()
        bound = _UPPER if best_score <= alpha_start else _LOWER if best_score >= beta else _EXACT
        self.table[key] = (depth, _to_table(best_score, ply), bound, move_code(best_move))
        return best_score

    def _quiesce(self, ply: int, alpha: int, beta: int, score: int) -> int:
        """Plays out captures (and queen promotions) until the position is quiet, so leaves are not mid-exchange."""
        self._visit()
        board = self.board
        extras = kings_and_pairs(board)
        stand = score + (extras if board.turn == chess.WHITE else -extras)
        in_check = board.is_check()
        if in_check:  # no standing pat in check: every evasion is searched, and none means mate
            moves = list(board.generate_legal_moves())
            if not moves:
                return -MATE + ply
            best = -INFINITY
        else:
            if stand >= beta:
                return stand
            alpha = max(alpha, stand)
            best = stand
            if stand + _best_gain(board) <= alpha:
                return stand  # not even taking their best piece (or queening) would reach alpha
            moves = captures(board)
        if ply >= MAX_PLY:
            return stand
        if in_check:
            moves = ordered(board, moves, history=self.history)
        for move in moves:
            delta = move_delta(board, move)
            if not in_check and stand + delta + _MARGIN <= alpha:
                continue  # even winning this material with a margin cannot lift the score to alpha
            board.push(move)
            if board.was_into_check():  # pseudo-legal capture that exposes our own king
                board.pop()
                continue
            value = -self._quiesce(ply + 1, -beta, -alpha, -(score + delta))
            board.pop()
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if value >= beta:
                        break
        return best

    def _remember_cutoff(self, move: chess.Move, depth: int, ply: int) -> None:
        killers, code = self.killers[ply], move_code(move)
        if killers[0] != code:
            killers[1], killers[0] = killers[0], code
        slot = history_slot(self.board.turn, move)
        self.history[slot] = self.history.get(slot, 0) + depth * depth
