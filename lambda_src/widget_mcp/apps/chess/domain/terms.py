"""The small vocabulary the domain speaks in: colours, opponents, statuses, as plain strings for JSON callers."""

from __future__ import annotations

from typing import Literal

import chess

Color = Literal["white", "black"]
Opponent = Literal["human", "engine"]
Status = Literal["active", "checkmate", "stalemate", "draw", "resigned"]
DrawReason = Literal["insufficient_material", "seventyfive_moves", "fivefold_repetition"]
ClaimableDraw = Literal["threefold_repetition", "fifty_moves"]


def color_name(turn: chess.Color) -> Color:
    return "white" if turn == chess.WHITE else "black"


def chess_color(color: Color) -> chess.Color:
    return chess.WHITE if color == "white" else chess.BLACK


def other_color(color: Color) -> Color:
    return "black" if color == "white" else "white"


_COLORS: dict[str, Color] = {"white": "white", "black": "black"}
_OPPONENTS: dict[str, Opponent] = {"human": "human", "engine": "engine"}


def require_color(value: str) -> Color:
    """Checks a colour at runtime: callers come from JSON, so the Literal type alone proves nothing."""
    color = _COLORS.get(value)
    if color is None:
        raise ValueError(f"{value!r} is not a colour; use 'white' or 'black'.")
    return color


def require_opponent(value: str) -> Opponent:
    opponent = _OPPONENTS.get(value)
    if opponent is None:
        raise ValueError(f"{value!r} is not an opponent kind; use 'human' or 'engine'.")
    return opponent
