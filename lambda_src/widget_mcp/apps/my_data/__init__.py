"""A user's own data across apps: `export_my_data` reads, `erase_my_data` deletes, every document an identified caller
keeps in its own partition, of the kinds each app declares (`ToolBook(keeps=…)`), so a new app is covered by its
declaration. The HTTP routes (`/account/data`) do the same for a signed-in user's bearer token."""

from __future__ import annotations

from typing import TYPE_CHECKING

from widget_mcp.apps.my_data.tools import build_book

if TYPE_CHECKING:
    from widget_mcp.apps.books import AppContext
    from widget_mcp.toolkit import ToolBook

__all__ = ["tool_book"]


def tool_book(context: AppContext) -> ToolBook:
    return build_book(context)
