"""The app-readiness check: `python -m widget_mcp.readiness <mcp url>` (or `make check-app URL=…`).

Connects like a host, then checks every tool and template against the ChatGPT / MCP Apps rules.
"""

from widget_mcp.readiness.rules import Finding, Snapshot, check

__all__ = ["Finding", "Snapshot", "check"]
