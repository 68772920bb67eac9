"""The chess tools: thin handlers that read the caller, call the service, and shape the three-tier result."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from widget_mcp.apps.chess import views
from widget_mcp.apps.chess.domain import ChessError, InvalidRecord
from widget_mcp.apps.chess.errors import GameNotFound, MoveConflict
from widget_mcp.apps.chess.service import ChessService, GameView, MoveRequest
from widget_mcp.toolkit import DISPLAY_HOST, ToolBook, ToolCall, ToolError, ToolResult
from widget_mcp.toolkit.ownership import StateOwner
from widget_mcp.toolkit.results import WIDGET_SESSION_KEY
from widget_mcp.toolkit.widgets import WidgetSpec

CHESS_BOARD = WidgetSpec(
    name="chess-board",
    entry="chess-board",
    title="Chess board",
    description=(
        "An interactive chess board showing the current game: the user can move pieces on it, "
        "and sees the engine's replies, check and the result."
    ),
)
LIST_LIMIT = 50
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


# With sign-in on, a token must hold this scope to use the chess tools.
CHESS_SCOPE = ("chess",)


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
        description="Instead of `move`: the square moved from.",
    )
    to_square: str | None = Field(
        default=None,
        alias="to",
        max_length=2,
        pattern=r"^[a-h][1-8]$",
        description="Instead of `move`: the square moved to.",
    )
    promotion: Literal["q", "r", "b", "n"] | None = Field(
        default=None, description="With from/to, the piece a pawn promotes to."
    )
    expected_ply: int | None = Field(
        default=None,
        alias="expectedPly",
        ge=0,
        le=MAX_PLY,
        description="The ply you saw (structuredContent.ply). The move is refused with 'conflict' if the game moved "
        "on; a retry of a move that already landed returns its result again.",
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

    def request(self) -> MoveRequest:
        return MoveRequest(self.move, self.from_square, self.to_square, self.promotion)


class GameIdInput(BaseModel):
    model_config = _STRICT

    game_id: str = _GAME_ID


class NoInput(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _owner(call: ToolCall) -> StateOwner:
    return call.owner("Games")


# Said instead of "no games" to a caller without identity, whose games exist but are reachable by id only.
UNLISTED = (
    "Listing games needs a signed-in or identified user, and this call carries no identity. Games started "
    "without one are not listed: continue one with the gameId its board or an earlier result shows."
)


@contextmanager
def _chess_errors() -> Iterator[None]:
    """Service and rules failures become error results with their codes; a conflict carries the current game."""
    try:
        yield
    except InvalidRecord:
        raise  # a stored game that does not replay is our fault: an internal error, logged, not a user error
    except MoveConflict as exc:
        current = GameView(exc.current)
        raise ToolError(
            str(exc),
            code=exc.code,
            details=views.game_state(exc.current).model_dump(mode="json"),
            meta={**views.game_meta(current), WIDGET_SESSION_KEY: exc.current.game_id},
        ) from exc
    except (ChessError, GameNotFound) as exc:
        raise ToolError(str(exc), code=exc.code) from exc


def _game_result(view: GameView, narration: str) -> ToolResult:
    return ToolResult(
        structured=views.game_state(view.game),
        narration=narration,
        meta=views.game_meta(view),
        widget_session_id=view.game.game_id,
    )


def build_book(service: ChessService) -> ToolBook:
    """The chess tools, bound to a service (and so to a store)."""
    book = ToolBook()

    @book.tool(
        name="chess_new_game",
        sign_in=CHESS_SCOPE,
        title="New chess game",
        description=(
            "Starts a chess game for the user and shows the board. Play the engine (opponent='engine') or let two "
            "people share the board (opponent='human'). Returns the gameId that the other chess tools take."
        ),
        output=views.GameState,
        read_only=False,
        destructive=False,
        open_world=False,
        invoking="Setting up the board…",
        invoked="Board ready",
        widget=CHESS_BOARD,
    )
    def chess_new_game(args: NewGameInput, call: ToolCall) -> ToolResult:
        with _chess_errors():
            view = service.new_game(_owner(call), color=args.color, opponent=args.opponent, fen=args.fen)
        return _game_result(view, views.new_game_narration(view))

    @book.tool(
        name="chess_move",
        sign_in=CHESS_SCOPE,
        title="Make a chess move",
        description=(
            "Plays a move in one of the user's games, given in SAN or UCI (or from/to squares). Against the engine, "
            "its reply is played in the same call. Pass expectedPly (the ply you last saw) so a stale move is refused."
        ),
        output=views.GameState,
        read_only=False,
        destructive=False,
        open_world=False,
        invoking="Moving…",
        invoked="Move played",
        widget=CHESS_BOARD,
        widget_accessible=True,
    )
    def chess_move(args: MoveInput, call: ToolCall) -> ToolResult:
        with _chess_errors():
            view = service.move(_owner(call), args.game_id, args.request(), args.expected_ply)
        return _game_result(view, views.move_narration(view))

    @book.tool(
        name="chess_show_game",
        sign_in=CHESS_SCOPE,
        title="Show a chess game",
        description="Shows one of the user's games: the board and the list of moves so far. Changes nothing.",
        output=views.GameState,
        read_only=True,
        destructive=False,
        open_world=False,
        idempotent=True,
        invoking="Fetching the game…",
        invoked="Game shown",
        widget=DISPLAY_HOST,
        widget_accessible=True,
    )
    def chess_show_game(args: GameIdInput, call: ToolCall) -> ToolResult:
        with _chess_errors():
            view = service.show(_owner(call), args.game_id)
        game = view.game
        state = views.game_state(game)
        meta = views.game_meta(view)
        call.emit(
            "chess-board",
            {**state.model_dump(mode="json"), "legalMoves": meta["legalMoves"], "captured": meta["captured"]},
            fallback=f"{views.diagram(game)}\n{views.outcome_sentence(game)}",
        )
        call.emit(
            "move-list",
            {"moves": game.move_history_san, "startFen": game.start_fen, "pgn": meta["pgn"]},
            fallback=views.numbered_moves(game),
        )
        return ToolResult(
            structured=state,
            narration=f"Game {game.game_id}, ply {game.ply}. {views.outcome_sentence(game)}",
            meta=meta,
            widget_session_id=game.game_id,
        )

    @book.tool(
        name="chess_list_games",
        sign_in=CHESS_SCOPE,
        title="List chess games",
        description="Lists the user's chess games, newest first, with their status and whose turn it is.",
        output=views.GameList,
        read_only=True,
        destructive=False,
        open_world=False,
        idempotent=True,
        invoking="Looking up your games…",
        invoked="Games listed",
        widget=DISPLAY_HOST,
    )
    def chess_list_games(args: NoInput, call: ToolCall) -> ToolResult:
        owner = _owner(call)
        games = [views.listing(s) for s in service.list_games(owner, LIST_LIMIT)]
        rows = [[g.game_id, f"{g.status}, {g.turn} to move, ply {g.ply}, vs {g.opponent}"] for g in games]
        if rows:
            call.emit("table", {"columns": ["game", "state"], "rows": rows}, "\n".join(" — ".join(r) for r in rows))
        count = len(games)
        if not owner.can_list:
            narration = UNLISTED
        elif count:
            narration = f"You have {count} game{'s' if count != 1 else ''}."
        else:
            narration = "You have no games yet."
        return ToolResult(structured=views.GameList(games=games, count=count), narration=narration)

    @book.tool(
        name="chess_resign",
        sign_in=CHESS_SCOPE,
        title="Resign a chess game",
        description=(
            "Resigns one of the user's games: against the engine the user resigns; between two people, the side to "
            "move does. The game ends and cannot be resumed."
        ),
        output=views.GameState,
        read_only=False,
        destructive=True,
        open_world=False,
        invoking="Resigning…",
        invoked="Game resigned",
        widget=CHESS_BOARD,
        widget_accessible=True,
    )
    def chess_resign(args: GameIdInput, call: ToolCall) -> ToolResult:
        with _chess_errors():
            view = service.resign(_owner(call), args.game_id)
        return _game_result(view, views.outcome_sentence(view.game))

    return book
