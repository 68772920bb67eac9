"""A small app that shows the toolkit end to end: a tool that emits display widgets."""

from __future__ import annotations

from typing import TYPE_CHECKING

from widget_mcp.apps.demo.tools import book

if TYPE_CHECKING:
    from widget_mcp import AppContext, ToolBook

__all__ = ["book", "tool_book"]


def tool_book(context: AppContext) -> ToolBook:
    """The demo needs neither settings nor storage."""
    return book
