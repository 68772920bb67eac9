"""The Team List app: shopping lists a team keeps together. Each list is a space (README, "Shared state"): its owner
adds members by their member id, and every member adds items and checks them off.

`tools.py` declares the tools and imports only pydantic and the toolkit (the server lists them at cold start);
`handlers.py` runs them, built on the first call on `context.store` through `repository.py` (the store's port)
and `service.py` (the rules: who may enter a list, what an item holds, how a check meets a concurrent one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from widget_mcp.apps.team_list.tools import declare

if TYPE_CHECKING:
    from widget_mcp.apps.registry import AppContext
    from widget_mcp.toolkit import ToolBook

__all__ = ["tool_book"]


def tool_book(context: AppContext) -> ToolBook:
    return declare(context)
