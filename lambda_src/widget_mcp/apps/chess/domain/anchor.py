"""Where a stored game can resume: the position right after its last irreversible move.

An irreversible move (python-chess's `Board.is_irreversible`: a capture, a pawn move, a lost castling right, a
ceded en passant capture) parts the game in two: no position before it can come back. python-chess stops looking
for repetitions there, and the 50- and 75-move rules read the halfmove clock the FEN carries. So a board set up
from the anchor, with the moves since pushed on it, decides every rule exactly as one replayed from the start,
while loading costs a bounded number of moves instead of the whole game.
"""

from __future__ import annotations

from dataclasses import dataclass

import chess

from widget_mcp.apps.chess.domain.terms import Color

_TAKEABLE = frozenset("pnbrq")


@dataclass(frozen=True, slots=True)
class Anchor:
    """`ply` half-moves into the game, at `fen`, after which no capture was made: so `captured` holds them all."""

    ply: int
    fen: str  # with the en passant square whenever the board has one, as the board itself keeps it
    captured: dict[Color, str]  # as Game.captured, the letters joined

    def board(self) -> chess.Board:
        """The position, with an empty move stack; raises ValueError for a malformed FEN or captured list."""
        if self.ply < 1 or not all(set(taken) <= _TAKEABLE for taken in self.captured.values()):
            raise ValueError(f"the anchor at ply {self.ply} with captures {self.captured} is impossible")
        return chess.Board(self.fen)


def anchor_at(board: chess.Board, moves_since: int, ply: int, captured: dict[Color, list[str]]) -> Anchor:
    """The anchor `moves_since` moves back on `board`'s stack, `ply` half-moves into the game."""
    # copy(stack=n).root() restores the position n moves back from the board's own snapshots: no replay.
    position = board.copy(stack=moves_since).root()
    return Anchor(
        ply=ply,
        fen=position.fen(en_passant="fen"),
        captured={"white": "".join(captured["white"]), "black": "".join(captured["black"])},
    )
