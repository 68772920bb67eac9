"""The "Build your own app" tutorial (docs/tutorial.md), run as written in a copy of the repository, both ways it
offers (the app on the display host, and with WIDGET=1 a widget of its own): scaffold, add the tool and its test, then
`make test-app`, which lints the app's files and runs its tests."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from readme_tutorial import STEP, TUTORIAL_APPS, ScaffoldedRepo, tutorial
from repo_copy import ROOT, run_in
from widget_mcp.apps.registry import APPS

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
    assert f"ruff check lambda_src/widget_mcp/apps/{name} tests/functional/test_{name}_tools.py tests/unit/{name}" in (
        ran.stdout
    )
    assert f"mypy lambda_src/widget_mcp/apps/{name}\n" in ran.stdout
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


def make_dry_run(cwd: Path, *args: str) -> list[str]:
    """The commands `make` would run in `cwd`, with this venv standing in (-o: it is not installed again)."""
    ran = run_in(
        cwd,
        "make",
        "-n",
        "--no-print-directory",
        "-f",
        str(ROOT / "Makefile"),
        "-o",
        f"{VENV}/.synced-test",
        *args,
        f"VENV={VENV}",
    )
    assert ran.returncode == 0, ran.stderr
    return ran.stdout.splitlines()


def app_tests(root: Path, name: str) -> list[str]:
    """An app's tests by convention: tests/unit/NAME/, and test_NAME.py or test_NAME_*.py in any layer."""
    found = {path for pattern in (f"test_{name}.py", f"test_{name}_*.py") for path in (root / "tests").rglob(pattern)}
    unit = root / "tests" / "unit" / name
    kept = {path for path in found if unit not in path.parents and "node_modules" not in path.parts}
    return sorted(str(path.relative_to(root)) for path in kept | ({unit} if unit.is_dir() else set()))


# The registry's apps with tests named by the convention (the demo app's display tool is tested across layers).
TESTED_APPS = [app for entry in APPS if app_tests(ROOT, app := entry.rsplit(".", 1)[1])]


def test_some_app_of_the_registry_names_its_tests_by_the_convention() -> None:
    assert TESTED_APPS, "no app of the registry has tests named tests/unit/NAME/ or test_NAME_*.py"


@pytest.mark.parametrize("app", TESTED_APPS)
def test_make_test_app_lints_type_checks_and_runs_every_test_of_the_app_found_by_its_name(app: str) -> None:
    tests = app_tests(ROOT, app)
    commands = make_dry_run(ROOT, "test-app", f"NAME={app}")
    assert f"{VENV}/bin/ruff check lambda_src/widget_mcp/apps/{app} {' '.join(tests)}" in commands
    assert f"{VENV}/bin/mypy lambda_src/widget_mcp/apps/{app}" in commands
    assert f"{VENV}/bin/python -m pytest -q -p no:cacheprovider {' '.join(tests)}" in commands


def test_make_test_app_finds_an_apps_tests_in_every_layer_and_no_other_apps(tmp_path: Path) -> None:
    layout = [
        "lambda_src/widget_mcp/apps/poll/__init__.py",
        "tests/unit/poll/test_tally.py",
        "tests/functional/test_poll_tools.py",
        "tests/functional/test_poll.py",
        "tests/browser/test_poll_widget.py",
        "tests/lambda/test_poll_through_lambda.py",
        "tests/functional/test_polling_tools.py",  # another app's
        "tests/unit/test_poll_unit_helpers.txt",  # not a test file
        "tests/browser/node_modules/x/test_poll_x.py",  # a package's, not the app's
    ]
    for path in layout:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    commands = make_dry_run(tmp_path, "test-app", "NAME=poll")
    tests = (
        "tests/browser/test_poll_widget.py tests/functional/test_poll.py tests/functional/test_poll_tools.py "
        "tests/lambda/test_poll_through_lambda.py tests/unit/poll"
    )
    assert tests.split() == app_tests(tmp_path, "poll")
    assert f"{VENV}/bin/python -m pytest -q -p no:cacheprovider {tests}" in commands
    assert f"{VENV}/bin/mypy lambda_src/widget_mcp/apps/poll" in commands


def test_make_test_app_for_an_app_without_tests_says_where_they_go_rather_than_run_the_whole_suite(
    tmp_path: Path,
) -> None:
    (tmp_path / "lambda_src/widget_mcp/apps/lonely").mkdir(parents=True)
    (tmp_path / "tests/unit").mkdir(parents=True)
    ran = run_in(
        tmp_path,
        "make",
        "--no-print-directory",
        "-f",
        str(ROOT / "Makefile"),
        "-o",
        f"{VENV}/.synced-test",
        "test-app",
        "NAME=lonely",
        f"VENV={VENV}",
    )
    assert ran.returncode == 2
    assert "no tests of app lonely: tests/unit/lonely/ or test_lonely_*.py" in ran.stderr
    assert "pytest" not in ran.stdout


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
