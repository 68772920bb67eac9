"""Compact storage form of a game: the start, the moves as UCI and SAN strings, and what the board cannot know.

Everything else (FEN, status, captures) is rebuilt from the moves, about 10 bytes per half-move. The SAN is kept
so that loading needs no notation work; version 1 records, without it, still load by a full replay.

Version 2 records may also carry an `anchor` (domain/anchor.py): the position after the last irreversible move.
Loading then replays only the moves since it, so the cost no longer grows with the game. The key is optional,
so records without it (older ones, or games with no irreversible move yet) replay in full, and readers that
predate it ignore it and replay in full too: no version bump, and a rollback still reads every game.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import NotRequired, TypedDict

from widget_mcp.apps.chess.domain.anchor import Anchor
from widget_mcp.apps.chess.domain.errors import InvalidRecord
from widget_mcp.apps.chess.domain.game import Game
from widget_mcp.apps.chess.domain.moves import MoveRecord
from widget_mcp.apps.chess.domain.terms import Color, Opponent, require_color, require_opponent

FORMAT_VERSION = 2
_READABLE_VERSIONS = (1, 2)
_UCI = re.compile(r"[a-h][1-8][a-h][1-8][qrbn]?")


class AnchorRecord(TypedDict):
    ply: int  # half-moves from the start to the anchor, at least 1
    fen: str
    captured: dict[Color, str]  # e.g. {"white": "pn", "black": "p"}


class GameRecord(TypedDict):
    v: int
    id: str
    fen: str | None  # start position; None means the standard start
    moves: str  # UCI moves separated by single spaces
    san: str  # the same moves in SAN, separated by single spaces
    opponent: Opponent
    color: Color  # the player's colour
    resigned_by: Color | None
    anchor: NotRequired[AnchorRecord]  # absent until an irreversible move has been played


def encode(game: Game) -> GameRecord:
    record: GameRecord = {
        "v": FORMAT_VERSION,
        "id": game.game_id,
        "fen": game.start_fen,
        "moves": " ".join(game.move_history_uci),
        "san": " ".join(game.move_history_san),
        "opponent": game.opponent,
        "color": game.player_color,
        "resigned_by": game.resigned_by,
    }
    anchor = game.anchor
    if anchor.ply > 0:
        record["anchor"] = {"ply": anchor.ply, "fen": anchor.fen, "captured": dict(anchor.captured)}
    return record


def decode(record: Mapping[str, object]) -> Game:
    """Rebuilds the game from its anchor, if any, and the moves after it; raises InvalidRecord if the record is
    malformed or does not replay."""
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
    anchor = None
    if version == FORMAT_VERSION:
        san = record.get("san")
        if not isinstance(san, str) or len(san.split()) != len(ucis):
            raise InvalidRecord(record, "san must list as many moves as moves")
        sans = list(san.split())
        anchor = _anchor(record, ucis)
    try:
        rival, side = require_opponent(opponent), require_color(color)
        if anchor is None:
            game = Game(game_id, opponent=rival, player_color=side, fen=fen)
        else:
            before = zip(ucis[: anchor.ply], sans[: anchor.ply], strict=True)
            earlier = [MoveRecord(uci, str(san), uci[:2], uci[2:4]) for uci, san in before]
            game = Game.resume(game_id, opponent=rival, player_color=side, fen=fen, earlier=earlier, anchor=anchor)
        for uci, known_san in zip(ucis[game.ply :], sans[game.ply :], strict=True):
            game.replay(uci, known_san)
        if resigned_by is not None:
            game.resign(require_color(resigned_by))
    except ValueError as exc:  # ChessError included; require_* raise plain ValueError
        raise InvalidRecord(record, str(exc).rstrip(".")) from exc
    return game


def _anchor(record: Mapping[str, object], ucis: list[str]) -> Anchor | None:
    """The record's anchor, checked for shape; the moves before it must at least read as UCI."""
    anchor = record.get("anchor")
    if anchor is None:
        return None
    if not isinstance(anchor, Mapping):
        raise InvalidRecord(record, "anchor must be an object")
    ply, fen, captured = anchor.get("ply"), anchor.get("fen"), anchor.get("captured")
    if not isinstance(ply, int) or isinstance(ply, bool) or not 1 <= ply <= len(ucis) or not isinstance(fen, str):
        raise InvalidRecord(record, "the anchor needs a ply within the moves and a FEN")
    if not isinstance(captured, Mapping) or not all(isinstance(captured.get(side), str) for side in ("white", "black")):
        raise InvalidRecord(record, "the anchor's captured pieces must be strings for white and black")
    if not all(map(_UCI.fullmatch, ucis[:ply])):
        raise InvalidRecord(record, "the moves before the anchor must be UCI")
    return Anchor(ply, fen, {"white": str(captured["white"]), "black": str(captured["black"])})
