"""Chess reference app: games in the document store, an engine opponent, a board widget (seed 002).

`domain/` is pure chess; `service.py` holds the use cases; `repository.py` maps games to documents;
`views.py` shapes results; `tools.py` declares the MCP tools.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from widget_mcp.apps.chess.repository import GameRepository, RetentionPolicy
from widget_mcp.apps.chess.service import ChessService, EngineBudget
from widget_mcp.apps.chess.tools import CHESS_BOARD, build_book

if TYPE_CHECKING:
    from widget_mcp.apps.registry import AppContext
    from widget_mcp.toolkit import ToolBook

__all__ = [
    "CHESS_BOARD",
    "ChessService",
    "EngineBudget",
    "GameRepository",
    "RetentionPolicy",
    "build_book",
    "tool_book",
]


def tool_book(context: AppContext) -> ToolBook:
    settings = context.settings
    games = GameRepository(
        context.store, RetentionPolicy(settings.chess_finished_ttl_days, settings.chess_idle_ttl_days)
    )
    budget = EngineBudget(settings.chess_engine_max_nodes, settings.chess_engine_max_seconds)
    return build_book(ChessService(games, budget))
