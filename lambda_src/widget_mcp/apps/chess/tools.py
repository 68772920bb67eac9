"""The chess tools as hosts see them: inputs, outputs, hints and widgets. Their handlers (handlers.py) load on the
first chess call, with the service, the domain and python-chess: listing the tools loads none of them."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from widget_mcp import DISPLAY_HOST, StoredData, ToolBook, ToolCall, ToolResult, WidgetSpec, days
from widget_mcp.apps.chess.inputs import GameIdInput, MoveInput, NewGameInput, NoInput
from widget_mcp.apps.chess.results import GameList, GameState
from widget_mcp.apps.chess.review import declare_review

if TYPE_CHECKING:
    from widget_mcp import AppContext
    from widget_mcp.apps.chess.handlers import ChessHandlers

CHESS_BOARD = WidgetSpec(
    name="chess-board",
    entry="chess-board",
    title="Chess board",
    description=(
        "An interactive chess board showing the current game: the user can move pieces on it, "
        "and sees the engine's replies, check and the result."
    ),
)
# With sign-in on, a token must hold this scope to use the chess tools.
CHESS_SCOPE = ("chess",)


# The gameId a chess tool takes is made by chess_new_game: declared, so the playground and test clients make one first.
GAME_IDS = {"gameId": "chess_new_game.gameId"}


# Hint justifications the tools share (ToolBook.tool's justify=).
PRIVATE_GAMES = "Changes only the user's own games in this app's private store; nothing outside it is read or written."
KEPT_GAME = (
    "Adds a saved game that counts toward the user's quota and "
    "that no chess tool removes, so the write is marked irreversible."
)


def build_book(context: AppContext) -> ToolBook:
    """The chess tools on this context's store and settings."""
    # Listing games without identity answers an empty list without reading the store: a call that keeps no state.
    book = ToolBook(warm_up=("chess_list_games", {}), keeps=("game",))
    settings = context.settings
    book.stored.append(
        StoredData(
            what="Chess games",
            content="the start position, every move (UCI and SAN), the game's status and the engine's last analysis",
            purpose="to show the board, continue a game later and list the user's games",
            kept=f"{days(settings.chess_finished_ttl_days)} after a game ends, {days(settings.chess_idle_ttl_days)} "
            "after its last move",
        )
    )

    @cache
    def chess() -> ChessHandlers:
        from widget_mcp.apps.chess.handlers import ChessHandlers

        return ChessHandlers.on(context)

    @book.tool(
        name="chess_new_game",
        justify={
            "read_only": "Creates a game in the user's saved games, so it writes state.",
            "open_world": PRIVATE_GAMES,
            "destructive": KEPT_GAME,
        },
        sign_in=CHESS_SCOPE,
        title="New chess game",
        description=(
            "Starts a chess game for the user and shows the board. Play the engine (opponent='engine') or let two "
            "people share the board (opponent='human'). Returns the gameId that the other chess tools take."
        ),
        output=GameState,
        read_only=False,
        destructive=True,
        open_world=False,
        invoking="Setting up the board…",
        invoked="Board ready",
        widget=CHESS_BOARD,
    )
    def chess_new_game(args: NewGameInput, call: ToolCall) -> ToolResult:
        return chess().new_game(args, call)

    @book.tool(
        name="chess_move",
        justify={
            "read_only": "Plays a move in a saved game, so it writes state.",
            "open_world": PRIVATE_GAMES,
            "destructive": "A move played cannot be taken back: the position before it is replaced in the saved game.",
        },
        ids=GAME_IDS,
        sign_in=CHESS_SCOPE,
        title="Make a chess move",
        description=(
            "Plays a move in one of the user's games, given in SAN or UCI (or from/to squares). Against the engine, "
            "its reply is played in the same call. Pass expectedPly (the ply you last saw) so a stale move is refused."
        ),
        output=GameState,
        read_only=False,
        destructive=True,
        open_world=False,
        invoking="Moving…",
        invoked="Move played",
        widget=CHESS_BOARD,
        widget_accessible=True,
    )
    def chess_move(args: MoveInput, call: ToolCall) -> ToolResult:
        return chess().move(args, call)

    @book.tool(
        name="chess_show_game",
        justify={
            "read_only": "Only reads one saved game and shows it; nothing is written.",
            "open_world": "Reads only the user's own game in this app's private store.",
            "destructive": "Reads only: nothing is deleted, overwritten or sent.",
        },
        ids=GAME_IDS,
        sign_in=CHESS_SCOPE,
        title="Show a chess game",
        description="Shows one of the user's games: the board and the list of moves so far. Changes nothing.",
        output=GameState,
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
        return chess().show_game(args, call)

    @book.tool(
        name="chess_list_games",
        justify={
            "read_only": "Only lists the user's saved games; nothing is written.",
            "open_world": "Reads only the user's own games in this app's private store.",
            "destructive": "Reads only: nothing is deleted, overwritten or sent.",
        },
        sign_in=CHESS_SCOPE,
        title="List chess games",
        description="Lists the user's chess games, newest first, with their status and whose turn it is.",
        output=GameList,
        read_only=True,
        destructive=False,
        open_world=False,
        idempotent=True,
        invoking="Looking up your games…",
        invoked="Games listed",
        widget=DISPLAY_HOST,
    )
    def chess_list_games(args: NoInput, call: ToolCall) -> ToolResult:
        return chess().list_games(args, call)

    @book.tool(
        name="chess_resign",
        justify={
            "read_only": "Ends a saved game by resignation, so it writes state.",
            "open_world": PRIVATE_GAMES,
            "destructive": "Resigning ends the game for good: it cannot be resumed.",
        },
        ids=GAME_IDS,
        sign_in=CHESS_SCOPE,
        title="Resign a chess game",
        description=(
            "Resigns one of the user's games: against the engine the user resigns; between two people, the side to "
            "move does. The game ends and cannot be resumed."
        ),
        output=GameState,
        read_only=False,
        destructive=True,
        open_world=False,
        invoking="Resigning…",
        invoked="Game resigned",
        widget=CHESS_BOARD,
        widget_accessible=True,
    )
    def chess_resign(args: GameIdInput, call: ToolCall) -> ToolResult:
        return chess().resign(args, call)

    declare_review(book)
    return book
