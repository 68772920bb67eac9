"""README's "Build your own app" tutorial as steps a test can follow in a copy of the repository."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

from repo_copy import ROOT, run_in

STEP = re.compile(r"<!-- tutorial: (run|append (\S+)) -->\n```\w+\n(.*?)```", re.S)


def tutorial(name: str = "weather") -> str:
    """The tutorial's text, for an app called `name` (the README's is weather)."""
    text = (ROOT / "README.md").read_text()
    start = text.index("## Build your own app")
    return text[start : text.index("\n## ", start + 1)].replace("weather", name)


def follow(copy: Path, name: str, *, widget: bool = False) -> list[list[str]]:
    """Scaffold (with WIDGET=1, as the tutorial suggests, when `widget`) and add its code, as written. Returns the
    other commands it runs (`make test-app …`), in order, for the caller to run and check."""
    later: list[list[str]] = []
    for match in STEP.finditer(tutorial(name)):
        if match.group(1) != "run":
            target = copy / match.group(2)
            assert target.is_file(), f"the tutorial appends to {match.group(2)}, which the scaffold did not write"
            target.write_text(target.read_text() + "\n\n" + match.group(3))
            continue
        for line in match.group(3).splitlines():
            command = shlex.split(line, comments=True)
            if command[:2] != ["make", "app"]:
                later.append(command)
                continue
            # `make app NAME=x` is the scaffold module; run directly, the copy needs no venv of its own.
            made = run_in(
                copy, sys.executable, "-m", "widget_mcp.local.scaffold", name, *(["--widget"] if widget else [])
            )
            assert made.returncode == 0, made.stderr
    return later
