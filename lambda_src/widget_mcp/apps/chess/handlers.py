"""What the chess tools do: read the caller, call the service, shape the three-tier result.

Loaded on the first chess call (tools.py declares the tools), with the service, the domain and python-chess.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from widget_mcp import (
    WIDGET_SESSION_KEY,
    ItemOverBudget,
    QuotaExceeded,
    QuotaFull,
    StateOwner,
    TooLarge,
    ToolCall,
    ToolError,
    ToolResult,
)
from widget_mcp.apps.chess import views
from widget_mcp.apps.chess.domain import ChessError, InvalidRecord
from widget_mcp.apps.chess.errors import GameNotFound, MoveConflict
from widget_mcp.apps.chess.inputs import GameIdInput, MoveInput, NewGameInput, NoInput
from widget_mcp.apps.chess.repository import GameRepository, RetentionPolicy
from widget_mcp.apps.chess.results import GameList
from widget_mcp.apps.chess.service import ChessService, EngineBudget, GameView, MoveRequest

if TYPE_CHECKING:
    from widget_mcp import AppContext

LIST_LIMIT = 50
# Said instead of "no games" to a caller without identity, whose games exist but are reachable by id only.
UNLISTED = (
    "Listing games needs a signed-in or identified user, and this call carries no identity. Games started "
    "without one are not listed: continue one with the gameId its board or an earlier result shows."
)


def chess_service(context: AppContext) -> ChessService:
    """The service on the context's store, with the retention and engine budget its settings give."""
    settings = context.settings
    games = GameRepository(
        context.store,
        RetentionPolicy(settings.chess_finished_ttl_days, settings.chess_idle_ttl_days),
        quota=settings.quota_live_games,
    )
    return ChessService(games, EngineBudget(settings.chess_engine_max_nodes, settings.chess_engine_max_seconds))


def _owner(call: ToolCall) -> StateOwner:
    return call.owner("Games")


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
            structured=views.game_state(exc.current),
            meta={**views.game_meta(current), WIDGET_SESSION_KEY: exc.current.game_id},
        ) from exc
    except (ChessError, GameNotFound) as exc:
        raise ToolError(str(exc), code=exc.code) from exc
    except ItemOverBudget as exc:
        raise TooLarge("game", exc.size, exc.budget, "Start a new game to keep playing.") from exc
    except QuotaFull as exc:
        raise QuotaExceeded("live games", exc.limit, exc.frees_at, "Finishing or resigning one of them") from exc


def _game_result(view: GameView, narration: str) -> ToolResult:
    return ToolResult(
        structured=views.game_state(view.game),
        narration=narration,
        meta=views.game_meta(view),
        widget_session_id=view.game.game_id,
    )


class ChessHandlers:
    """The five chess tools' handlers, bound to one service (and so to one store)."""

    def __init__(self, service: ChessService) -> None:
        self.service = service

    @classmethod
    def on(cls, context: AppContext) -> ChessHandlers:
        return cls(chess_service(context))

    def new_game(self, args: NewGameInput, call: ToolCall) -> ToolResult:
        with _chess_errors():
            view = self.service.new_game(_owner(call), color=args.color, opponent=args.opponent, fen=args.fen)
        return _game_result(view, views.new_game_narration(view))

    def move(self, args: MoveInput, call: ToolCall) -> ToolResult:
        request = MoveRequest(args.move, args.from_square, args.to_square, args.promotion)
        with _chess_errors():
            view = self.service.move(_owner(call), args.game_id, request, args.expected_ply)
        return _game_result(view, views.move_narration(view))

    def show_game(self, args: GameIdInput, call: ToolCall) -> ToolResult:
        with _chess_errors():
            view = self.service.show(_owner(call), args.game_id)
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

    def list_games(self, args: NoInput, call: ToolCall) -> ToolResult:
        owner = _owner(call)
        games = [views.listing(s) for s in self.service.list_games(owner, LIST_LIMIT)]
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
        return ToolResult(structured=GameList(games=games, count=count), narration=narration)

    def resign(self, args: GameIdInput, call: ToolCall) -> ToolResult:
        with _chess_errors():
            view = self.service.resign(_owner(call), args.game_id)
        return _game_result(view, views.outcome_sentence(view.game))
