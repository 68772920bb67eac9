"""Compact storage form of a game: the start, the moves as UCI and SAN strings, and what the board cannot know.

Everything else (FEN, status, captures) is rebuilt by replaying the moves, about 10 bytes per half-move.
The SAN is kept so that loading needs no notation work (the costliest part of a replay); version 1 records,
without it, still load.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

from widget_mcp.apps.chess.domain.errors import InvalidRecord
from widget_mcp.apps.chess.domain.game import Game
from widget_mcp.apps.chess.domain.terms import Color, Opponent, require_color, require_opponent

FORMAT_VERSION = 2
_READABLE_VERSIONS = (1, 2)


class GameRecord(TypedDict):
    v: int
    id: str
    fen: str | None  # start position; None means the standard start
    moves: str  # UCI moves separated by single spaces
    san: str  # the same moves in SAN, separated by single spaces
    opponent: Opponent
    color: Color  # the player's colour
    resigned_by: Color | None


def encode(game: Game) -> GameRecord:
    return {
        "v": FORMAT_VERSION,
        "id": game.game_id,
        "fen": game.start_fen,
        "moves": " ".join(game.move_history_uci),
        "san": " ".join(game.move_history_san),
        "opponent": game.opponent,
        "color": game.player_color,
        "resigned_by": game.resigned_by,
    }


def decode(record: Mapping[str, object]) -> Game:
    """Rebuilds the game by replaying its moves; raises InvalidRecord if the record is malformed or does not replay."""
    version = record.get("v")
    if version not in _READABLE_VERSIONS:
        raise InvalidRecord(record, f"format version {version!r} is not one of {_READABLE_VERSIONS}")
    game_id, moves = record.get("id"), record.get("moves")
    fen, resigned_by = record.get("fen"), record.get("resigned_by")
    opponent, color = record.get("opponent"), record.get("color")
    if not isinstance(game_id, str) or not isinstance(moves, str):
        raise InvalidRecord(record, "id and moves must be strings")
    if not isinstance(opponent, str) or not isinstance(color, str):
        raise InvalidRecord(record, "opponent and color must be strings")
    if not (fen is None or isinstance(fen, str)) or not (resigned_by is None or isinstance(resigned_by, str)):
        raise InvalidRecord(record, "fen and resigned_by must be strings or null")
    ucis = moves.split()
    sans: list[str | None] = [None] * len(ucis)
    if version == FORMAT_VERSION:
        san = record.get("san")
        if not isinstance(san, str) or len(san.split()) != len(ucis):
            raise InvalidRecord(record, "san must list as many moves as moves")
        sans = list(san.split())
    try:
        game = Game(game_id, opponent=require_opponent(opponent), player_color=require_color(color), fen=fen)
        for uci, known_san in zip(ucis, sans, strict=True):
            game.replay(uci, known_san)
        if resigned_by is not None:
            game.resign(require_color(resigned_by))
    except ValueError as exc:  # ChessError included; require_* raise plain ValueError
        raise InvalidRecord(record, str(exc).rstrip(".")) from exc
    return game
