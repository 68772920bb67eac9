"""Serverless, widget-backed MCP tools for ChatGPT Apps and MCP Apps hosts."""

__version__ = "0.1.0"
