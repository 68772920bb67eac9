"""Reading tool results in tests: one place for the checks every functional test makes first."""

from __future__ import annotations

from typing import Any

from mcp_types import CallToolResult


def structured(result: CallToolResult) -> dict[str, Any]:
    """The result's structuredContent; a result without one fails the test, showing its text content."""
    assert result.structured_content is not None, result.content
    return dict(result.structured_content)


def text_of(result: CallToolResult) -> str:
    """The result's text content, joined: what a host without UI shows."""
    return "\n".join(getattr(block, "text", "") for block in result.content)


def error_of(result: CallToolResult) -> dict[str, Any]:
    """An error result's `_meta.error` ({code, message, ...}), where widgets and programs read it; a result that
    is not an error fails the test, showing its text content."""
    assert result.is_error, result.content
    assert result.meta is not None, result.content
    assert "error" in result.meta, result.meta
    return dict(result.meta["error"])
