"""Pure chess domain: games, moves, outcomes, a compact storage codec and a small deterministic engine.

Depends only on the standard library and python-chess; no I/O, no clocks except the engine's optional time budget.
"""

from widget_mcp.apps.chess.domain.codec import GameRecord, decode, encode
from widget_mcp.apps.chess.domain.engine import EngineResult, choose_move, play_engine_reply
from widget_mcp.apps.chess.domain.errors import (
    ChessError,
    GameOver,
    IllegalMove,
    InvalidMove,
    InvalidPosition,
    InvalidRecord,
)
from widget_mcp.apps.chess.domain.game import Game
from widget_mcp.apps.chess.domain.moves import MoveRecord
from widget_mcp.apps.chess.domain.outcome import GameState
from widget_mcp.apps.chess.domain.terms import ClaimableDraw, Color, DrawReason, Opponent, Status

__all__ = [
    "ChessError",
    "ClaimableDraw",
    "Color",
    "DrawReason",
    "EngineResult",
    "Game",
    "GameOver",
    "GameRecord",
    "GameState",
    "IllegalMove",
    "InvalidMove",
    "InvalidPosition",
    "InvalidRecord",
    "MoveRecord",
    "Opponent",
    "Status",
    "choose_move",
    "decode",
    "encode",
    "play_engine_reply",
]
