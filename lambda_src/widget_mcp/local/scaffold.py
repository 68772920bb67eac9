"""`python -m widget_mcp.local.scaffold NAME [--widget | --state]` (what `make app NAME=…` runs): a new app.

It writes the app package (a pure `domain.py`, the tools in `tools.py`, `tool_book` in `__init__.py`), its unit
and functional tests, optionally a widget bundle entry of its own, and adds the package to the app registry. With
`--state` (STATE=1) the app keeps state instead: a repository on the store's port, a service, handlers with a
version-checked edit and an atomic like, and their tests, a race on moto among them.
`make test` passes right after; `make dev` serves the new tool in the playground.
"""

from __future__ import annotations

import argparse
import keyword
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from widget_mcp.local.scaffold_state_templates import state_app_files
from widget_mcp.local.scaffold_templates import app_files, registry_line, widget_entry, widget_files

REPO = Path(__file__).resolve().parents[3]
REGISTRY = Path("lambda_src/widget_mcp/apps/registry.py")
VITE_CONFIG = Path("widget_bundles/vite.config.ts")
_NAME = re.compile(r"^[a-z][a-z0-9_]{1,30}$")
_ENTRIES = re.compile(r"(const ENTRIES = \{\n(?:  .*\n)*?)(\};)")


class ScaffoldError(ValueError):
    """The app cannot be created as asked; carries the offending name."""

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(f"cannot create app {name!r}: {problem}")
        self.name = name


@dataclass(frozen=True)
class Created:
    files: list[Path]
    registered: str


def check_name(name: str, repo: Path) -> None:
    if not _NAME.match(name) or name.endswith("_") or "__" in name:
        raise ScaffoldError(
            name, "use 2 to 31 lower-case letters, digits and single underscores, starting with a letter"
        )
    if keyword.iskeyword(name) or name in {"registry", "apps", "test", "tests"}:
        raise ScaffoldError(name, "that name is reserved; choose another")
    if (repo / "lambda_src" / "widget_mcp" / "apps" / name).exists():
        raise ScaffoldError(name, f"lambda_src/widget_mcp/apps/{name} already exists")


def _register(repo: Path, name: str) -> str:
    path = repo / REGISTRY
    text = path.read_text()
    line = registry_line(name)
    end = text.find("\n)\n", text.find("BUILT_IN: tuple[str, ...] = ("))
    if end < 0:
        raise ScaffoldError(name, f"cannot find the BUILT_IN tuple in {REGISTRY}; add {line.strip()} to it by hand")
    path.write_text(text[:end] + "\n" + line.rstrip("\n") + text[end:])
    return line.strip()


def _add_entry(repo: Path, name: str) -> None:
    path = repo / VITE_CONFIG
    text = path.read_text()
    found = _ENTRIES.search(text)
    if found is None:
        raise ScaffoldError(name, f"cannot find ENTRIES in {VITE_CONFIG}; add {name}: 'src/{name}/main.ts' by hand")
    entry = f'  "{widget_entry(name)}": "src/{name}/main.ts",\n'
    path.write_text(text[: found.end(1)] + entry + text[found.end(1) :])


def planned_files(name: str, repo: Path, *, widget: bool = False, state: bool = False) -> dict[Path, str]:
    """The files `make app` would write for `name` in `repo`; raises when the name is not free there."""
    check_name(name, repo)
    if widget and state:
        raise ScaffoldError(name, "STATE=1 apps show on the display host: add a widget later (docs/widgets.md)")
    if registry_line(name).strip() in (repo / REGISTRY).read_text():
        raise ScaffoldError(name, f"{REGISTRY} already lists widget_mcp.apps.{name}")
    files = state_app_files(name) if state else app_files(name, widget=widget)
    if widget:
        files.update(widget_files(name))
        if (repo / "widget_bundles" / "src" / name).exists():
            raise ScaffoldError(name, f"widget_bundles/src/{name} already exists")
    clashes = [path for path in files if (repo / path).exists()]
    if clashes:
        raise ScaffoldError(name, f"{clashes[0]} already exists")
    return files


def scaffold(name: str, *, widget: bool = False, state: bool = False, repo: Path = REPO) -> Created:
    files = planned_files(name, repo, widget=widget, state=state)
    written = []
    for path, text in files.items():
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        written.append(path)
    if widget:
        _add_entry(repo, name)
    return Created(written, _register(repo, name))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make app NAME=…", description="Create a new app on the toolkit.")
    parser.add_argument("name", help="the app's package name, snake_case, e.g. weather")
    parser.add_argument("--widget", action="store_true", help="also create a widget bundle entry of its own")
    parser.add_argument("--state", action="store_true", help="an app that keeps state (repository, service, handlers)")
    args = parser.parse_args(argv)
    try:
        created = scaffold(args.name, widget=args.widget, state=args.state)
    except ScaffoldError as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"created app {args.name}:")
    for path in created.files:
        print(f"  {path}")
    print(f"registered {created.registered} in {REGISTRY}")
    if args.widget:
        print(f"added the widget entry {widget_entry(args.name)!r} to {VITE_CONFIG}")
    print(
        f"next: `make test-app NAME={args.name}` runs its tests (and lints its files), `make dev` serves it in the "
        "playground, `make test` runs everything"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
