"""A small app that shows the toolkit end to end: a tool that emits display widgets."""

from widget_mcp.apps.demo.tools import book

__all__ = ["book"]
