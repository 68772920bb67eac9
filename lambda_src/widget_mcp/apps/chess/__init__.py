"""Chess reference app: games in the document store, an engine opponent, a board widget (seed 002).

`domain/` is pure chess; `service.py` holds the use cases; `repository.py` maps games to documents;
`views.py` shapes results; `tools.py` declares the MCP tools.
"""

from widget_mcp.apps.chess.repository import GameRepository, RetentionPolicy
from widget_mcp.apps.chess.service import ChessService, EngineBudget
from widget_mcp.apps.chess.tools import CHESS_BOARD, build_book

__all__ = ["CHESS_BOARD", "ChessService", "EngineBudget", "GameRepository", "RetentionPolicy", "build_book"]
