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
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
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


def section_python(heading: str) -> list[str]:
    """The python blocks of README.md's section under `heading` ("## …" or "### …"), in order, up to the next
    heading of its level."""
    text = README.read_text()
    start = text.index(heading)
    level = heading[: len(heading) - len(heading.lstrip("#"))]
    section = text[start : text.index(f"\n{level} ", start + 1)]
    return re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)


def run_python_section(heading: str) -> dict[str, Any]:
    """The namespace left by the README section under `heading` (e.g. "## Run long work as a task"), its python
    blocks run in order after the toolkit's imports and a `book = ToolBook()`: the section's examples as a user
    pastes them into one file."""
    code = section_python(heading)
    namespace: dict[str, Any] = {}
    exec(
        "from widget_mcp.toolkit import ToolBook, ToolCall, ToolResult\nbook = ToolBook()\n" + "\n".join(code),
        namespace,
    )
    return namespace


def assert_guide_apps_pass_ruff(where: Path, apps: dict[str, str], checked: str, what: str) -> None:
    """`ruff check` and `ruff format --check` (the repository's config) pass on `checked`, with each of `apps` (package
    name: the guide's code) written where the guide puts it, lambda_src/widget_mcp/apps/<name>/, under `where`: so
    imports sort as they will there."""
    apps_dir = where / "widget_mcp" / "apps"
    for package, code in apps.items():
        (apps_dir / package).mkdir(parents=True)
        (apps_dir / package / "__init__.py").write_text(code)
    for parent in (where / "widget_mcp", apps_dir):
        (parent / "__init__.py").write_text("")
    config = ["--config", str(ROOT / "pyproject.toml"), checked]
    for command in (["check", *config], ["format", "--check", *config]):
        ran = subprocess.run(
            [sys.executable, "-m", "ruff", *command], cwd=where, capture_output=True, text=True, timeout=60, check=False
        )
        assert ran.returncode == 0, f"ruff {command[0]} of README.md's {what} app:\n{ran.stdout}{ran.stderr}"
