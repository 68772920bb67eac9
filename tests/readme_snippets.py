"""The READMEs' code blocks (README.md, infra/README.md, bench/README.md), each with the marker on the line before
it that says how it is tested.

Markers (HTML comments, invisible on the rendered page):
- `<!-- tutorial: run -->`, `<!-- tutorial: append PATH -->`: the "Build your own app" steps (readme_tutorial.py);
- `<!-- snippet: run python; prints TEXT; … -->`: a script, run as written with `.venv/bin/python` against a local
  server, which must exit 0 and print each TEXT;
- `<!-- snippet: run shell; prints TEXT; … -->`: shell lines (curl), run the same way;
- `<!-- snippet: app NAME -->`: an app package's `__init__.py`, served as if listed in the registry;
- `<!-- snippet: result of NAME TOOL ARGS -->`: the JSON result that app's TOOL answers to ARGS;
- `<!-- snippet: tested by PATH -->`: a block the test module PATH runs (examples read together, in order);
- `<!-- snippet: output of … -->` (what a command prints) and `<!-- snippet: not run (why) -->`: shown, not run.
Snippets speak to `make dev`'s default address; the tests put their own server's in its place.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from typing import Any

from repo_copy import ROOT

README = ROOT / "README.md"
# The READMEs whose every block is marked: the user's guide, the deploy guide (its blocks deploy, so are not run)
# and the benchmarks' (their blocks are a run's output).
MARKED = ("README.md", "infra/README.md", "bench/README.md")
DEV_URL = "http://127.0.0.1:8000"

_BLOCK = re.compile(
    r"^(?P<indent>[ ]*)(?:<!-- (?P<marker>[^\n]*?) -->\n(?P=indent))?"
    r"```(?P<language>\w*)\n(?P<body>.*?)^(?P=indent)```$",
    re.S | re.M,
)
_KINDS = re.compile(
    r"tutorial: (run|append \S+)"
    r"|snippet: (run python|run shell|app \w+|result of .+|tested by \S+|output of .+|not run \(.+\))"
)


@dataclass(frozen=True)
class Block:
    line: int
    marker: str | None
    code: str

    @property
    def kind(self) -> str:
        """`run python`, `app words`, …: the marker's first part."""
        return (self.marker or "").removeprefix("snippet: ").split("; ")[0]

    @property
    def prints(self) -> list[str]:
        parts = (self.marker or "").split("; ")[1:]
        return [part.removeprefix("prints ") for part in parts if part.startswith("prints ")]

    def against(self, base_url: str) -> str:
        """The code with `make dev`'s address replaced by `base_url`."""
        return self.code.replace(DEV_URL, base_url)


def blocks(text: str | None = None, *, path: str = "README.md") -> list[Block]:
    """The code blocks of `text`, else of the file at `path` (relative to the repository)."""
    text = (ROOT / path).read_text() if text is None else text
    return [
        Block(
            line=text.count("\n", 0, match.start("language")) + 1,  # the opening fence's
            marker=match.group("marker"),
            code=textwrap.dedent(match.group("body")),
        )
        for match in _BLOCK.finditer(text)
    ]


def unmarked(found: list[Block], path: str = "README.md") -> list[str]:
    """Where a block lacks a marker, or has one this module does not know."""
    return [
        f"{path} line {block.line}: {block.marker or 'no marker'}"
        for block in found
        if block.marker is None or not _KINDS.fullmatch(block.marker.split("; ")[0])
    ]


def snippets(kind: str) -> list[Block]:
    return [block for block in blocks() if block.kind == kind]


def run_python_section(heading: str) -> dict[str, Any]:
    """The namespace left by the README section under `heading` (e.g. "## Run long work as a task"), its python
    blocks run in order after the toolkit's imports and a `book = ToolBook()`: the section's examples as a user
    pastes them into one file."""
    text = README.read_text()
    start = text.index(heading)
    section = text[start : text.index("\n## ", start + 1)]
    code = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    namespace: dict[str, Any] = {}
    exec(
        "from widget_mcp.toolkit import ToolBook, ToolCall, ToolResult\nbook = ToolBook()\n" + "\n".join(code),
        namespace,
    )
    return namespace
