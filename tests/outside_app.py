"""An app package of a user's own, outside the toolkit, written into a folder of the test's: one read-only tool
that answers an empty structured result, on the public API only (any package with a `tool_book` serves)."""

from __future__ import annotations

from pathlib import Path


def write_outside_app(folder: Path, package: str, tool: str) -> Path:
    """Write `package` (serving `tool`) under `folder`, which the test then puts on the path; answers its folder."""
    target = folder / package
    target.mkdir()
    (target / "__init__.py").write_text(
        "from pydantic import BaseModel, ConfigDict\n"
        "from widget_mcp import AppContext, ToolBook, ToolCall, ToolResult\n"
        "book = ToolBook()\n"
        "class Nothing(BaseModel):\n"
        "    model_config = ConfigDict(extra='forbid')\n"
        f"@book.tool(name='{tool}', title='Weather now', description='Says the weather.', read_only=True,\n"
        "           destructive=False, open_world=False, idempotent=True, output=Nothing, invoking='…', invoked='…')\n"
        "def weather_now(args: Nothing, call: ToolCall) -> ToolResult:\n"
        "    return ToolResult(structured=Nothing(), narration='Sunny.')\n"
        "def tool_book(context: AppContext) -> ToolBook:\n"
        "    return book\n",
        encoding="utf-8",
    )
    return target
