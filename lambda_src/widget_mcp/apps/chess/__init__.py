"""Chess reference app: games in the document store, an engine opponent, a board widget (seed 002).

`tools.py` declares the MCP tools (light: listing them loads nothing below); `handlers.py` runs them, loaded on
the first chess call; `service.py` holds the use cases; `repository.py` maps games to documents; `views.py`
shapes results; `domain/` is pure chess (python-chess).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from widget_mcp.apps.chess.tools import build_book

if TYPE_CHECKING:
    from widget_mcp import AppContext, ToolBook

__all__ = ["tool_book"]


def tool_book(context: AppContext) -> ToolBook:
    return build_book(context)
