"""What the chess tools take: their arguments as pydantic models, strict, with the bounds hosts see in the schema."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

# No game gets near this many plies; the cap keeps an absurd number out rather than comparing it.
MAX_PLY = 100_000

_GAME_ID = Field(
    alias="gameId",
    min_length=1,
    max_length=64,
    pattern=r"^[A-Za-z0-9_-]+$",
    description="The game's id, as returned by chess_new_game or chess_list_games.",
)
_STRICT = ConfigDict(extra="forbid", validate_by_name=True, validate_by_alias=True, strict=True)


class NewGameInput(BaseModel):
    model_config = _STRICT

    color: Literal["white", "black"] = Field(default="white", description="The side you play.")
    opponent: Literal["human", "engine"] = Field(
        default="human", description="'engine' to play the built-in engine; 'human' for two players on one board."
    )
    fen: str | None = Field(
        default=None, min_length=1, max_length=100, description="Start from this position (FEN) instead of the start."
    )


class MoveInput(BaseModel):
    model_config = _STRICT

    game_id: str = _GAME_ID
    move: str | None = Field(
        default=None,
        min_length=1,
        max_length=16,
        description="The move in SAN (Nf3, O-O, e8=Q) or UCI (g1f3, e7e8q).",
        examples=["e4"],
    )
    from_square: str | None = Field(
        default=None,
        alias="from",
        max_length=2,
        pattern=r"^[a-h][1-8]$",
        description="Instead of `move` (as the board sends it): the square moved from.",
    )
    to_square: str | None = Field(
        default=None,
        alias="to",
        max_length=2,
        pattern=r"^[a-h][1-8]$",
        description="Instead of `move` (as the board sends it): the square moved to.",
    )
    promotion: Literal["q", "r", "b", "n"] | None = Field(
        default=None, description="With from/to, the piece a pawn promotes to."
    )
    expected_ply: int | None = Field(
        default=None,
        alias="expectedPly",
        ge=0,
        le=MAX_PLY,
        description="The game's `ply` in the last result you saw (every chess result states it). The move is refused "
        "with 'conflict' if the game moved on; a retry of a move that already landed returns its result again.",
    )

    @model_validator(mode="after")
    def _one_way_to_say_the_move(self) -> MoveInput:
        squares = self.from_square is not None or self.to_square is not None
        if self.move is not None and squares:
            raise ValueError("give either `move` or `from`+`to`, not both")
        if self.move is None and (self.from_square is None or self.to_square is None):
            raise ValueError("give the move as `move` (SAN or UCI), or as both `from` and `to`")
        if self.promotion is not None and self.move is not None:
            raise ValueError("`promotion` goes with `from`+`to`; in `move`, write it in the notation (e8=Q or e7e8q)")
        return self


class GameIdInput(BaseModel):
    model_config = _STRICT

    game_id: str = _GAME_ID


class NoInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
