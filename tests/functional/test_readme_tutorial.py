"""The README's "Build your own app" tutorial, run as written in a copy of the repository, both ways it offers
(the app on the display host, and with WIDGET=1 a widget of its own): scaffold, add the tool and its test, then
`make test-app`, which lints the app's files and runs its tests."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from readme_tutorial import STEP, TUTORIAL_APPS, ScaffoldedRepo, tutorial
from repo_copy import ROOT, run_in

VENV = Path(sys.executable).parent.parent


def test_the_tutorial_has_its_steps_in_order() -> None:
    kinds = [match.group(1).split()[0] for match in STEP.finditer(tutorial())]
    assert kinds == ["run", "append", "append", "run"]


@pytest.mark.parametrize("way", TUTORIAL_APPS)
def test_make_test_app_lints_the_tutorials_app_and_passes_its_tests_including_the_added_one(
    scaffolded_repo: ScaffoldedRepo, way: str
) -> None:
    copy, app = scaffolded_repo.path, scaffolded_repo.apps[way]
    name = app.name
    assert app.commands == [["make", "test-app", f"NAME={name}"]]
    # This venv stands in for the copy's; -o: it is not installed again.
    ran = run_in(
        copy, "make", "--no-print-directory", "-o", f"{VENV}/.synced-test", *app.commands[0][1:], f"VENV={VENV}"
    )
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-2000:]
    assert (
        f"ruff check lambda_src/widget_mcp/apps/{name} tests/unit/{name} tests/functional/test_{name}_tools.py"
        in ran.stdout
    )
    # The scaffold's 2 unit and 2 functional tests, and the tutorial's: exactly 5 (a bare "5 passed" is in "15 passed").
    assert re.search(r"(?<!\d)5 passed in ", ran.stdout), ran.stdout[-3000:]


def test_make_test_app_without_a_known_app_says_so() -> None:
    ran = run_in(
        ROOT,
        "make",
        "--no-print-directory",
        "-o",
        f"{VENV}/.synced-test",
        "test-app",
        "NAME=nope",
        f"VENV={VENV}",
    )
    assert ran.returncode == 2
    assert "no app lambda_src/widget_mcp/apps/nope" in ran.stderr


def test_the_playground_link_calls_the_tutorials_tool_with_valid_arguments(scaffolded_repo: ScaffoldedRepo) -> None:
    link = re.search(r"<(http://127\.0\.0\.1:8000/playground\?[^>]+)>", tutorial())
    assert link is not None
    query = parse_qs(urlsplit(link.group(1)).query)
    assert query["tool"] == ["weather_to_fahrenheit"]
    assert query["args"] == ['{"celsius":21.5}']
    # The tool the tutorial added (in the copy, under the name it got there) takes them as they are.
    name = scaffolded_repo.apps["display-host"].name
    check = f"import sys; from widget_mcp.apps.{name} import tools; tools.ConvertInput.model_validate_json(sys.argv[1])"
    valid = run_in(scaffolded_repo.path, sys.executable, "-c", check, query["args"][0])
    assert valid.returncode == 0, valid.stderr
