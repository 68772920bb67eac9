"""PGN export: the standard text form of a game, with SetUp/FEN headers when it did not start from the start."""

from __future__ import annotations

import chess
import chess.pgn

from widget_mcp.apps.chess.domain.outcome import GameState


def export_pgn(board: chess.Board, state: GameState, *, white: str, black: str) -> str:
    game = chess.pgn.Game.from_board(board)  # adds SetUp and FEN when the root is not the standard start
    game.headers["Event"] = "Casual game"
    game.headers["White"] = white
    game.headers["Black"] = black
    # Our state, not board.result(): the board knows nothing of resignations.
    game.headers["Result"] = state.result
    if state.status == "resigned" and state.winner is not None:
        loser = "Black" if state.winner == "white" else "White"
        game.end().comment = f"{loser} resigns."
    return game.accept(chess.pgn.StringExporter(headers=True, variations=False, comments=True))
