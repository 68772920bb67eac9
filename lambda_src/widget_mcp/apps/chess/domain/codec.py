"""Compact storage form of a game: the start, the moves as one UCI string, and what the board cannot know.

Everything else (FEN, SAN history, status, captures) is rebuilt by replaying the moves, so the record
stays around 5 bytes per half-move and cannot disagree with itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

from widget_mcp.apps.chess.domain.errors import InvalidRecord
from widget_mcp.apps.chess.domain.game import Game
from widget_mcp.apps.chess.domain.terms import Color, Opponent, require_color, require_opponent

FORMAT_VERSION = 1


class GameRecord(TypedDict):
    v: int
    id: str
    fen: str | None  # start position; None means the standard start
    moves: str  # UCI moves separated by single spaces
    opponent: Opponent
    color: Color  # the player's colour
    resigned_by: Color | None


def encode(game: Game) -> GameRecord:
    return {
        "v": FORMAT_VERSION,
        "id": game.game_id,
        "fen": game.start_fen,
        "moves": " ".join(game.move_history_uci),
        "opponent": game.opponent,
        "color": game.player_color,
        "resigned_by": game.resigned_by,
    }


def decode(record: Mapping[str, object]) -> Game:
    """Rebuilds the game by replaying its moves; raises InvalidRecord if the record is malformed or does not replay."""
    if record.get("v") != FORMAT_VERSION:
        raise InvalidRecord(record, f"format version {record.get('v')!r} is not {FORMAT_VERSION}")
    game_id, moves = record.get("id"), record.get("moves")
    fen, resigned_by = record.get("fen"), record.get("resigned_by")
    opponent, color = record.get("opponent"), record.get("color")
    if not isinstance(game_id, str) or not isinstance(moves, str):
        raise InvalidRecord(record, "id and moves must be strings")
    if not isinstance(opponent, str) or not isinstance(color, str):
        raise InvalidRecord(record, "opponent and color must be strings")
    if not (fen is None or isinstance(fen, str)) or not (resigned_by is None or isinstance(resigned_by, str)):
        raise InvalidRecord(record, "fen and resigned_by must be strings or null")
    try:
        game = Game(game_id, opponent=require_opponent(opponent), player_color=require_color(color), fen=fen)
        for uci in moves.split():
            game.play(uci)
        if resigned_by is not None:
            game.resign(require_color(resigned_by))
    except ValueError as exc:  # ChessError included; require_* raise plain ValueError
        raise InvalidRecord(record, str(exc).rstrip(".")) from exc
    return game
