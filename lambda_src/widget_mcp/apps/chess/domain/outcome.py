"""Where a game stands: still going, or finished and how, plus draws a player could claim."""

from __future__ import annotations

from dataclasses import dataclass

import chess

from widget_mcp.apps.chess.domain.errors import GameOver
from widget_mcp.apps.chess.domain.terms import ClaimableDraw, Color, DrawReason, Status, color_name, other_color

# Only draws the rules apply on their own end the game; claimable ones are reported, not applied.
_AUTOMATIC_DRAWS: dict[chess.Termination, DrawReason] = {
    chess.Termination.INSUFFICIENT_MATERIAL: "insufficient_material",
    chess.Termination.SEVENTYFIVE_MOVES: "seventyfive_moves",
    chess.Termination.FIVEFOLD_REPETITION: "fivefold_repetition",
}


@dataclass(frozen=True, slots=True)
class GameState:
    status: Status
    winner: Color | None = None
    draw_reason: DrawReason | None = None
    claimable_draw: ClaimableDraw | None = None

    @property
    def is_over(self) -> bool:
        return self.status != "active"

    @property
    def result(self) -> str:
        """The PGN result token: 1-0, 0-1, 1/2-1/2, or * while the game goes on."""
        if self.winner is not None:
            return "1-0" if self.winner == "white" else "0-1"
        return "*" if self.status == "active" else "1/2-1/2"


def assess(board: chess.Board, resigned_by: Color | None = None) -> GameState:
    if resigned_by is not None:
        return GameState("resigned", winner=other_color(resigned_by))
    outcome = board.outcome(claim_draw=False)
    if outcome is None:
        return GameState("active", claimable_draw=_claimable_draw(board))
    if outcome.termination == chess.Termination.CHECKMATE:
        return GameState("checkmate", winner=color_name(not board.turn))
    if outcome.termination == chess.Termination.STALEMATE:
        return GameState("stalemate")
    return GameState("draw", draw_reason=_AUTOMATIC_DRAWS[outcome.termination])


def _claimable_draw(board: chess.Board) -> ClaimableDraw | None:
    # A claim is an action on the position as it stands, so only count positions that already qualify
    # (python-chess's can_claim_* would also count ones a single move away).
    if board.is_repetition(3):
        return "threefold_repetition"
    if board.is_fifty_moves():
        return "fifty_moves"
    return None


def game_over_error(state: GameState, attempted: str | None = None) -> GameOver:
    return GameOver(state.status, winner=state.winner, draw_reason=state.draw_reason, attempted=attempted)
