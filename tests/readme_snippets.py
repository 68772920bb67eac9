"""The guide's code blocks (README.md and every page under docs/, then infra/README.md and bench/README.md), each with
the marker on the line before it that says how it is tested.

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
DOCS = ROOT / "docs"


def guide_pages() -> tuple[str, ...]:
    """The user's guide: the README (the front page) and every page of the docs site, as paths from the root. Found
    in the tree, so a page added to docs/ is checked without a list to update (mkdocs' strict build fails on a page
    left out of its nav)."""
    return ("README.md", *sorted(str(page.relative_to(ROOT)) for page in DOCS.rglob("*.md")))


# The files whose every block is marked: the user's guide, the deploy guide (its blocks deploy, so are not run) and
# the benchmarks' (their blocks are a run's output).
MARKED = (*guide_pages(), "infra/README.md", "bench/README.md")
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
    path: str = "README.md"

    @property
    def where(self) -> str:
        return f"{self.path} line {self.line}"

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


def blocks(text: str | None = None, *, path: str | None = None) -> list[Block]:
    """The code blocks of `text` (named README.md), else of the file at `path` (relative to the repository), else of
    every page of the user's guide."""
    if text is None and path is None:
        return [block for page in guide_pages() for block in blocks(path=page)]
    path = path or "README.md"
    text = (ROOT / path).read_text() if text is None else text
    return [
        Block(
            line=text.count("\n", 0, match.start("language")) + 1,  # the opening fence's
            marker=match.group("marker"),
            code=textwrap.dedent(match.group("body")),
            path=path,
        )
        for match in _BLOCK.finditer(text)
    ]


def unmarked(found: list[Block]) -> list[str]:
    """Where a block lacks a marker, or has one this module does not know."""
    return [
        f"{block.where}: {block.marker or 'no marker'}"
        for block in found
        if block.marker is None or not _KINDS.fullmatch(block.marker.split("; ")[0])
    ]


def snippets(kind: str) -> list[Block]:
    """The guide's blocks of one kind (`run python`, …), from every page."""
    return [block for block in blocks() if block.kind == kind]


def _headings(text: str) -> list[tuple[int, int, str]]:
    """Each markdown heading of `text` as (offset, level, title), leaving out lines in fenced blocks (a comment)."""
    fenced = [range(match.start(), match.end()) for match in _BLOCK.finditer(text)]
    return [
        (match.start(), len(match.group(1)), match.group(2))
        for match in re.finditer(r"^(#+) (.+)$", text, flags=re.M)
        if not any(match.start() in span for span in fenced)
    ]


def section(title: str) -> tuple[str, str]:
    """The guide page holding the heading `title` (any level; leading #s are ignored) and the text under it, up to
    the next heading of its level or above: a whole page when `title` is the page's own title."""
    title = title.lstrip("# ")
    texts = {page: (ROOT / page).read_text() for page in guide_pages()}
    found = [
        (page, index)
        for page, text in texts.items()
        for index, (_, _, name) in enumerate(_headings(text))
        if name == title
    ]
    assert len(found) == 1, f"the heading {title!r} is in {len(found)} places of the guide (README.md, docs/), not one"
    [(page, index)] = found
    text = texts[page]
    heads = _headings(text)
    start, level, _ = heads[index]
    end = next((offset for offset, deeper, _ in heads[index + 1 :] if deeper <= level), len(text))
    return page, text[start:end]


def section_python(heading: str) -> list[str]:
    """The python blocks of the guide's section under `heading` (found on whichever page holds it), in order."""
    return re.findall(r"```python\n(.*?)```", section(heading)[1], flags=re.DOTALL)


def run_python_section(heading: str) -> dict[str, Any]:
    """The namespace left by the guide's section under `heading` (e.g. "Run long work as a task"), its python
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
        assert ran.returncode == 0, f"ruff {command[0]} of the guide's {what} app:\n{ran.stdout}{ran.stderr}"
