"""The fixtures (tools, prompts, resources) the official MCP conformance suite calls by name, built only with the
toolkit's public API.

Served with `CONFORMANCE=1` (`make conformance`, `CONFORMANCE=1 make dev`), never in a deployment: the names and
texts are the suite's, so it can check what each MCP feature looks like on the wire.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from conformance_fixtures import input_fixtures, prompts, resources, task_fixtures  # noqa: F401 - on `book`
from conformance_fixtures.tools import book

if TYPE_CHECKING:
    from widget_mcp.apps.books import AppContext
    from widget_mcp.toolkit import ToolBook

__all__ = ["book", "tool_book"]


def tool_book(context: AppContext) -> ToolBook:
    """The fixtures need neither settings nor storage."""
    return book
