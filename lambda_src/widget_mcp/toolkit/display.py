"""The display host template (seed 000): renders a result's `_meta.widgets` in order, by type."""

from __future__ import annotations

from widget_mcp.toolkit.widgets import WidgetSpec

DISPLAY_HOST = WidgetSpec(
    name="display",
    entry="display",
    title="Display widgets",
    description="Shows the tool's display widgets (tables, text, boards) in the order the tool produced them.",
    prefers_border=True,
)
"""The widget that renders a result's display widgets (`call.emit`): a tool with no widget of its own names it."""
