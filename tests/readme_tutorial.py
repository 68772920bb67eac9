"""The "Build your own app" tutorial (docs/tutorial.md) as steps a test can follow in a copy of the repository."""

from __future__ import annotations

import itertools
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from readme_snippets import section
from repo_copy import run_in
from widget_mcp.local.scaffold import ScaffoldError, planned_files


@dataclass(frozen=True)
class TutorialApp:
    """An app the tutorial was followed for in a copy, and the commands it left to run (`make test-app …`)."""

    name: str
    widget: bool
    commands: list[list[str]]


@dataclass(frozen=True)
class ScaffoldedRepo:
    path: Path
    apps: dict[str, TutorialApp]  # by way of following: "display-host" (as written) and "widget-1" (WIDGET=1)
    stateful: str = ""  # the app `make app NAME=… STATE=1` made beside them (notes in a clean clone)


# The name the STATE=1 app gets in a clean clone (the next free one otherwise).
STATEFUL_APP = "notes"


# How the tutorial is followed in the shared copy, and the name each app would have in a clean clone. The copy is
# of the working tree, which may hold an app of that name already (the tutorial followed by hand): the app then
# gets the next free name (weather2), so these tests pass before and after someone follows the tutorial.
TUTORIAL_APPS = {"display-host": ("weather", False), "widget-1": ("forecast", True)}


STEP = re.compile(r"<!-- tutorial: (run|append (\S+)) -->\n```\w+\n(.*?)```", re.S)


def tutorial(name: str = "weather") -> str:
    """The tutorial's text, for an app called `name` (the guide's is weather)."""
    return section("Build your own app")[1].replace("weather", name)


def unused_name(repo: Path, base: str, *, widget: bool = False, state: bool = False) -> str:
    """`base`, else `base2`, `base3`, …: the first name `make app` accepts in `repo`, which may already hold an app
    of that name (a copy of a working tree where someone followed the tutorial)."""
    for number in itertools.count(1):
        name = base if number == 1 else f"{base}{number}"
        try:
            planned_files(name, repo, widget=widget, state=state)
        except ScaffoldError:
            continue
        return name
    raise AssertionError("unreachable")


def follow(copy: Path, name: str, *, widget: bool = False, make: bool = False) -> list[list[str]]:
    """Scaffold (with WIDGET=1, as the tutorial suggests, when `widget`) and add its code, as written. Returns the
    other commands it runs (`make test-app …`), in order, for the caller to run and check. With `make`, the scaffold
    runs as the tutorial says (`make app NAME=…`, which installs what it needs); without, its module runs directly
    with this interpreter, and the copy needs no venv of its own."""
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
            if make:
                made = run_in(copy, *command, *(["WIDGET=1"] if widget else []))
            else:
                made = run_in(
                    copy, sys.executable, "-m", "widget_mcp.local.scaffold", name, *(["--widget"] if widget else [])
                )
            assert made.returncode == 0, made.stdout + made.stderr
    return later
