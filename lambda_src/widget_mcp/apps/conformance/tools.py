"""Fixture tools with the names, arguments and results the conformance suite's scenarios expect."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from widget_mcp.toolkit import ToolBook, ToolCall, ToolError, ToolResult

book = ToolBook()


class NoArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TextOutput(BaseModel):
    text: str


SIMPLE_TEXT = "This is a simple text response for testing."


@book.tool(
    name="test_simple_text",
    title="Simple text",
    description="Returns one fixed sentence as text content (conformance: tools-call-simple-text).",
    output=TextOutput,
    read_only=True,
    destructive=False,
    open_world=False,
    idempotent=True,
    invoking="Answering…",
    invoked="Answered",
)
def test_simple_text(args: NoArguments, call: ToolCall) -> ToolResult:
    return ToolResult(structured=TextOutput(text=SIMPLE_TEXT), narration=SIMPLE_TEXT)


@book.tool(
    name="test_error_handling",
    title="Error handling",
    description="Always fails with a tool error result (conformance: tools-call-error).",
    output=TextOutput,
    read_only=True,
    destructive=False,
    open_world=False,
    idempotent=True,
    invoking="Failing on purpose…",
    invoked="Failed on purpose",
)
def test_error_handling(args: NoArguments, call: ToolCall) -> ToolResult:
    raise ToolError("This tool intentionally returns an error for testing", code="intentional_error")
