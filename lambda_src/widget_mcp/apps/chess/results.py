"""What the chess tools return as structuredContent: the game state and the list of games (their outputSchema).

Declared apart from the domain so the tool list is built without loading python-chess.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

_CAMEL = ConfigDict(validate_by_name=True, validate_by_alias=True, serialize_by_alias=True)


class LastMove(BaseModel):
    model_config = _CAMEL

    uci: str
    san: str
    from_square: str = Field(alias="from")
    to_square: str = Field(alias="to")


class GameState(BaseModel):
    """The contract fields of a game, plus who plays it (a board needs that to face the right way)."""

    model_config = _CAMEL

    game_id: str = Field(alias="gameId")
    fen: str
    turn: Literal["white", "black"]
    status: Literal["active", "checkmate", "stalemate", "draw", "resigned"]
    winner: Literal["white", "black"] | None
    ply: int
    check: bool
    last_move: LastMove | None = Field(alias="lastMove")
    opponent: Literal["human", "engine"]
    player_color: Literal["white", "black"] = Field(alias="playerColor")


class GameListing(BaseModel):
    model_config = _CAMEL

    game_id: str = Field(alias="gameId")
    status: str
    winner: str | None
    turn: str
    ply: int
    opponent: str
    player_color: str = Field(alias="playerColor")
    fen: str


class GameList(BaseModel):
    games: list[GameListing]
    count: int
