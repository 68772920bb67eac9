"""How a game is shown: the concise structuredContent, the widget-only `_meta`, and a one-line narration."""

from __future__ import annotations

from typing import Any

from widget_mcp.apps.chess.domain import Game
from widget_mcp.apps.chess.repository import GameSummary
from widget_mcp.apps.chess.results import GameListing, GameState, LastMove
from widget_mcp.apps.chess.service import GameView


def game_state(game: Game) -> GameState:
    last = game.last_move
    return GameState(
        gameId=game.game_id,
        fen=game.fen,
        turn=game.turn,
        status=game.status,
        winner=game.winner,
        ply=game.ply,
        check=game.check,
        lastMove=None if last is None else LastMove(**last.to_dict()),
        opponent=game.opponent,
        playerColor=game.player_color,
    )


def game_meta(view: GameView) -> dict[str, Any]:
    """Everything a board widget needs beyond the concise state; the model does not see it."""
    game = view.game
    meta: dict[str, Any] = {
        "moveHistory": game.move_history_san,
        "pgn": game.pgn(),
        "legalMoves": game.legal_moves_uci,
        "captured": game.captured,
    }
    if game.draw_reason is not None:
        meta["drawReason"] = game.draw_reason
    if game.claimable_draw is not None:
        meta["claimableDraw"] = game.claimable_draw
    if view.analysis is not None:
        meta["analysis"] = view.analysis
    return meta


def outcome_sentence(game: Game) -> str:
    if game.status == "checkmate":
        return f"Checkmate: {game.winner} wins."
    if game.status == "stalemate":
        return "Stalemate: the game is drawn."
    if game.status == "draw":
        return f"Draw by {(game.draw_reason or 'rule').replace('_', ' ')}."
    if game.status == "resigned":
        return f"{(game.resigned_by or '').capitalize()} resigned: {game.winner} wins."
    check = f" {game.turn.capitalize()} is in check." if game.check else ""
    return f"{game.turn.capitalize()} to move.{check}"


def move_narration(view: GameView) -> str:
    """E.g. "White played Nf3. Black to move." or "White played e4; the engine replied e5. White to move." """
    game = view.game
    moves = game.moves
    if view.engine_replied and len(moves) >= 2:
        mover = game.turn  # the engine just replied, so the player who moved is to move again
        played = f"{mover.capitalize()} played {moves[-2].san}; the engine replied {moves[-1].san}."
    elif moves:
        mover = "black" if game.turn == "white" else "white"
        played = f"{mover.capitalize()} played {moves[-1].san}."
    else:
        played = "No moves yet."
    return f"{played} {outcome_sentence(game)}"


def new_game_narration(view: GameView) -> str:
    game = view.game
    if game.opponent == "engine":
        opening = f" The engine opened with {game.moves[-1].san}." if view.engine_replied and game.moves else ""
        setup = f"New game {game.game_id} against the engine; you play {game.player_color}."
        return f"{setup}{opening} {outcome_sentence(game)}"
    return f"New game {game.game_id} (two players, one board). {outcome_sentence(game)}"


def numbered_moves(game: Game) -> str:
    """ "1. e4 e5 2. Nf3": the move list as people write it (starting with "1..." when black moved first)."""
    board = game.start_board
    parts: list[str] = []
    for index, san in enumerate(game.move_history_san):
        white_to_move = (index % 2 == 0) == board.turn
        number = board.fullmove_number + (index + (0 if board.turn else 1)) // 2
        if white_to_move:
            parts.append(f"{number}. {san}")
        elif index == 0:
            parts.append(f"{number}... {san}")
        else:
            parts.append(san)
    return " ".join(parts) or "(no moves yet)"


def diagram(game: Game) -> str:
    """A text board for hosts without widgets: rank 8 at the top, upper case for white."""
    return str(game.recent_board)


def listing(summary: GameSummary) -> GameListing:
    return GameListing(
        gameId=summary.game_id,
        status=summary.status,
        winner=summary.winner,
        turn=summary.turn,
        ply=summary.ply,
        opponent=summary.opponent,
        playerColor=summary.player_color,
        fen=summary.fen,
    )
