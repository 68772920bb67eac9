"""The files a new app starts from (see scaffold.py). `$name`, `$Title` and `$widget` are filled in."""

from __future__ import annotations

from pathlib import Path
from string import Template

INIT = '''"""The $title app. Scaffolded by `make app`; edit freely.

`domain.py` holds the logic and does no I/O; `tools.py` declares the MCP tools, and each handler imports the
domain when first called, so listing the tools (a cold start) loads only their declarations. An app that keeps
state builds its service on `context.store` on first use (the chess and forms apps show how: `handlers.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from widget_mcp.apps.$name.tools import book

if TYPE_CHECKING:
    from widget_mcp import AppContext, ToolBook

__all__ = ["book", "tool_book"]


def tool_book(context: AppContext) -> ToolBook:
    return book
'''

DOMAIN = '''"""The $title app's logic: pure functions, no I/O, errors that carry the offending input."""

from __future__ import annotations

from dataclasses import dataclass


class EmptyNote(ValueError):
    """A note with nothing in it but spaces."""

    def __init__(self, text: str) -> None:
        super().__init__("The note is empty: write a few words for it.")
        self.text = text


@dataclass(frozen=True)
class Note:
    text: str
    words: int


def tidy_note(text: str) -> Note:
    """The note as it is shown: runs of spaces and line breaks become one space."""
    tidied = " ".join(text.split())
    if not tidied:
        raise EmptyNote(text)
    return Note(text=tidied, words=len(tidied.split()))
'''

TOOLS = '''"""The $title app's tools: thin handlers that parse input, call the domain, shape the result.

This module imports only pydantic and the toolkit: the server lists the tools from it at cold start. A handler
imports the rest (the domain, libraries) inside its body, when first called.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

$toolkit_imports
# Before a SnapStart snapshot the server makes this call (it keeps no state), which loads what the handler imports.
book = ToolBook(warm_up=("${name}_note", {"text": "snapshot"}))
$widget_spec

class NoteInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # Every string, number and list argument needs a cap: the toolkit refuses to declare a tool without one.
    # The example is what the playground's form starts from, and what the test clients call the tool with.
    text: str = Field(max_length=500, description="What the note says.", examples=["Check again on Monday morning"])


class NoteOutput(BaseModel):
    note: str = Field(description="The note, its spacing tidied.", examples=["Check again on Monday morning"])
    words: int = Field(description="How many words it has.", examples=[5])


@book.tool(
    name="${name}_note",
    title="Show a note",
    description=(
        "Shows a short note in the conversation, its spacing tidied, and counts its words. "
        "Use it when the user asks to put a note or a reminder in view."
    ),
    output=NoteOutput,
    read_only=True,
    destructive=False,
    open_world=False,
    idempotent=True,
    invoking="Writing the note…",
    invoked="Note shown",
    widget=$widget,
)
def ${name}_note(args: NoteInput, call: ToolCall) -> ToolResult:
    from widget_mcp.apps.$name.domain import EmptyNote, tidy_note

    try:
        note = tidy_note(args.text)
    except EmptyNote as exc:
        # An error result: isError, this sentence for the model, and _meta.error = {code, message} for programs.
        raise ToolError(str(exc), code="empty_note") from exc
    call.emit("text", {"text": note.text}, fallback=note.text)  # a display widget; its fallback is also in `content`
    words = f"{note.words} word{'' if note.words == 1 else 's'}"
    return ToolResult(structured=NoteOutput(note=note.text, words=note.words), narration=f"Showed the note ({words}).")
'''

# DISPLAY_HOST is imported in both variants, so a tool added without a widget of its own (the tutorial's
# `widget=DISPLAY_HOST`) works in either; `as DISPLAY_HOST` marks it as meant, where no tool uses it yet.
WIDGET_IMPORTS = (
    "from widget_mcp import DISPLAY_HOST as DISPLAY_HOST\n"
    "from widget_mcp import ToolBook, ToolCall, ToolError, ToolResult, WidgetSpec\n"
)
WIDGET_SPEC = """
# The widget bundle widget_bundles/src/$name/main.ts, built into its own entry.
${NAME}_WIDGET = WidgetSpec(
    name="$kebab",
    entry="$kebab",
    title="$title",
    description="Shows the $title app's note.",
)
"""
DISPLAY_IMPORTS = "from widget_mcp import DISPLAY_HOST, ToolBook, ToolCall, ToolError, ToolResult\n"

UNIT_TEST = '''"""The $title app's domain, without MCP or storage."""

from __future__ import annotations

import pytest
from widget_mcp.apps.$name.domain import EmptyNote, Note, tidy_note


def test_a_note_has_its_spacing_tidied_and_its_words_counted() -> None:
    assert tidy_note("  Check again\\non   Monday ") == Note(text="Check again on Monday", words=4)


def test_an_empty_note_is_refused_and_carries_what_was_sent() -> None:
    with pytest.raises(EmptyNote) as caught:
        tidy_note(" \\n ")
    assert caught.value.text == " \\n "
'''

FUNCTIONAL_TEST = '''"""The $title app's tools through the official MCP client, in memory."""

from __future__ import annotations

import pytest
from mcp import Client
from mcp_types import CallToolResult, TextContent
from widget_mcp.testing import memory_client


@pytest.fixture
def client() -> Client:
    return memory_client()  # a server of its own for each test, its state in memory


def texts(result: CallToolResult) -> list[str]:
    return [block.text for block in result.content if isinstance(block, TextContent)]


async def test_a_note_answers_with_structured_content_a_widget_and_a_narration(client: Client) -> None:
    async with client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        result = await client.call_tool("${name}_note", {"text": " Check again  on Monday"})

    meta = tools["${name}_note"].meta
    assert meta is not None
    assert meta["ui"]["resourceUri"].startswith("ui://widget/$widget_name-")
    assert result.structured_content == {"note": "Check again on Monday", "words": 4}
    assert result.meta is not None
    note = "Check again on Monday"
    assert result.meta["widgets"] == [{"type": "widget", "widget": "text", "data": {"text": note}, "fallback": note}]
    # The narration, the structured content as JSON (for clients that hand their model only text), each fallback.
    assert texts(result) == ["Showed the note (4 words).", '{"note":"Check again on Monday","words":4}', note]


async def test_an_empty_note_is_an_error_result_with_its_code(client: Client) -> None:
    async with client:
        result = await client.call_tool("${name}_note", {"text": "  "})

    # The code is in _meta.error, where widgets and programs read it; no structuredContent (it would have to
    # match the tool's outputSchema, which describes a note).
    message = "The note is empty: write a few words for it."
    assert result == CallToolResult(
        content=[TextContent(type="text", text=message)],
        meta={"error": {"code": "empty_note", "message": message}},
        is_error=True,
    )
'''

WIDGET_MAIN = """// The $title app's widget: shows the note from the tool's structuredContent.

import "../shared/zod-jitless"; // first: before any module builds a zod schema
import "../shared/base.css";
import "./$name.css";
import { startWidget, type ToolResult } from "../shared/bridge";
import { el } from "../shared/dom";
import { failureOf } from "../shared/errors";

function render(root: HTMLElement, result: ToolResult): void {
  // Text from the model or a user is always set as text, never as HTML.
  // An error result says what went wrong in `_meta.error` ({code, message}): show it, not a note.
  const failure = failureOf(result);
  if (failure) {
    const attrs = { class: "wm-error", role: "alert", "data-testid": "$name-error", "data-code": failure.code };
    root.replaceChildren(el("p", attrs, failure.message));
    return;
  }
  const note = result.structuredContent?.note;
  const text = typeof note === "string" ? note : (result.content?.[0]?.text ?? "Nothing to show.");
  root.replaceChildren(el("p", { class: "$name-note", "data-testid": "$name-note" }, text));
}

const root = document.getElementById("root");
if (root) {
  root.replaceChildren(el("p", { class: "wm-muted" }, "Waiting for the tool result…"));
  startWidget({ name: "$kebab", onResult: (result) => render(root, result) });
}
"""

WIDGET_CSS = """.$name-note {
  font-size: 1.25rem;
  margin: 0.5rem 0;
}
"""


def _fill(template: str, name: str, *, widget: bool) -> str:
    title = name.replace("_", " ").title()
    spec = f"{name.upper()}_WIDGET"
    kebab = widget_entry(name)
    return Template(template).substitute(
        name=name,
        NAME=name.upper(),
        title=title,
        widget=spec if widget else "DISPLAY_HOST",
        widget_name=kebab if widget else "display",
        kebab=kebab,
        toolkit_imports=WIDGET_IMPORTS if widget else DISPLAY_IMPORTS,
        widget_spec=Template(WIDGET_SPEC).substitute(name=name, NAME=name.upper(), title=title, kebab=kebab)
        if widget
        else "",
    )


def app_files(name: str, *, widget: bool) -> dict[Path, str]:
    package = Path("lambda_src/widget_mcp/apps") / name
    return {
        package / "__init__.py": _fill(INIT, name, widget=widget),
        package / "domain.py": _fill(DOMAIN, name, widget=widget),
        package / "tools.py": _fill(TOOLS, name, widget=widget),
        Path("tests/unit") / name / f"test_{name}_domain.py": _fill(UNIT_TEST, name, widget=widget),
        Path("tests/functional") / f"test_{name}_tools.py": _fill(FUNCTIONAL_TEST, name, widget=widget),
    }


def widget_files(name: str) -> dict[Path, str]:
    folder = Path("widget_bundles/src") / name
    return {
        folder / "main.ts": _fill(WIDGET_MAIN, name, widget=True),
        folder / f"{name}.css": _fill(WIDGET_CSS, name, widget=True),
    }


def widget_entry(name: str) -> str:
    """Widget and bundle entry names are kebab-case (they appear in `ui://widget/<name>-<hash>.html`)."""
    return name.replace("_", "-")


def registry_line(name: str) -> str:
    return f'    "widget_mcp.apps.{name}",\n'
