"""`make app NAME=…`: in a copy of this repository where the tutorial was followed for two new apps (one on
the display host, one with a widget of its own) and `make app NAME=… STATE=1` made one that keeps state, they are
registered, the code passes lint and type checks, the tests that derive from the registry count them, the widget
builds into the bundle manifest, and the stateful app's own tests pass through `make test-app` (the tutorial's
apps' run in test_readme_tutorial.py, on the same copy)."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from readme_tutorial import ScaffoldedRepo
from repo_copy import ROOT, run_in
from widget_mcp.apps.registry import APPS
from widget_mcp.local.scaffold import ScaffoldError, check_name, planned_files
from widget_mcp.local.scaffold_templates import widget_entry

VENV_BIN = Path(sys.executable).parent
run = run_in


@pytest.fixture
def copy(scaffolded_repo: ScaffoldedRepo) -> Path:
    return scaffolded_repo.path


@pytest.fixture
def display(scaffolded_repo: ScaffoldedRepo) -> str:
    """The app made as the tutorial is written (weather in a clean clone)."""
    return scaffolded_repo.apps["display-host"].name


@pytest.fixture
def stateful(scaffolded_repo: ScaffoldedRepo) -> str:
    """The app made with STATE=1 (notes in a clean clone)."""
    return scaffolded_repo.stateful


@pytest.fixture
def widgeted(scaffolded_repo: ScaffoldedRepo) -> str:
    """The app made with WIDGET=1 (forecast in a clean clone)."""
    return scaffolded_repo.apps["widget-1"].name


def test_the_new_apps_are_registered_in_the_one_list_of_apps(
    copy: Path, display: str, widgeted: str, stateful: str
) -> None:
    listed = run(copy, sys.executable, "-c", "from widget_mcp.apps.registry import APPS; print(list(APPS))")
    new = [f"widget_mcp.apps.{name}" for name in (display, widgeted, stateful)]
    assert listed.stdout.strip() == str([*APPS, *new])
    entry = f'"{widget_entry(widgeted)}": "src/{widgeted}/main.ts",'
    assert entry in (copy / "widget_bundles/vite.config.ts").read_text()


def test_the_generated_apps_have_no_import_circle_as_make_lint_counts_them(copy: Path) -> None:
    circles = run(copy, sys.executable, "-m", "tests.import_cycles", "lambda_src/widget_mcp")
    assert circles.returncode == 0, circles.stdout + circles.stderr


def test_the_generated_code_passes_ruff_and_strict_mypy(copy: Path) -> None:
    paths = ["lambda_src", "tests"]
    cache = copy / ".mypy_cache"
    if (ROOT / ".mypy_cache").is_dir() and not cache.exists():
        # `make test` type-checks the tree first: from its cache, mypy re-checks what the tutorial changed and what
        # depends on it (the result is a full check's), not every module and library stub again
        shutil.copytree(ROOT / ".mypy_cache", cache)
    lint = run(copy, str(VENV_BIN / "ruff"), "check", *paths)
    formatted = run(copy, str(VENV_BIN / "ruff"), "format", "--check", *paths)
    types = run(copy, str(VENV_BIN / "mypy"), "--cache-dir", str(cache))
    assert lint.returncode == 0, lint.stdout
    assert formatted.returncode == 0, formatted.stdout
    assert types.returncode == 0, types.stdout


def test_the_tests_that_derive_from_the_registry_count_the_new_tools_and_pass(
    copy: Path, display: str, widgeted: str, stateful: str
) -> None:
    tests = [
        "tests/functional/test_request_limits.py",
        "tests/functional/test_in_memory_client.py",
        "tests/functional/test_check_app_profiles.py",  # the new tools pass every directory's profile
    ]
    ran = run(copy, sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", *tests)
    assert ran.returncode == 0, ran.stdout[-3000:]
    assert f"[{display}_note.text] PASSED" in ran.stdout
    assert f"[{widgeted}_to_fahrenheit.celsius] PASSED" in ran.stdout
    assert f"[{stateful}_edit_note.version] PASSED" in ran.stdout
    listed = run(
        copy,
        sys.executable,
        "-c",
        "import sys; sys.path.insert(0, 'tests'); from served_tools import SERVED_TOOLS; print(SERVED_TOOLS[-8:])",
    )
    notes = [f"{stateful}_{verb}_note" for verb in ("add", "edit", "like", "show")]
    assert listed.stdout.strip() == str(
        [f"{display}_note", f"{display}_to_fahrenheit", f"{widgeted}_note", f"{widgeted}_to_fahrenheit", *notes]
    ), listed.stderr


def test_make_test_app_runs_the_stateful_apps_own_tests_its_race_on_moto_included(copy: Path, stateful: str) -> None:
    # This venv stands in for the copy's; -o: it is not installed again.
    venv = VENV_BIN.parent
    ran = run(
        copy,
        "make",
        "--no-print-directory",
        "-o",
        f"{venv}/.synced-test",
        "test-app",
        f"NAME={stateful}",
        f"VENV={venv}",
    )
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-2000:]
    assert f"mypy lambda_src/widget_mcp/apps/{stateful}\n" in ran.stdout
    # Its service's 6 unit tests, its tools' 4 through the MCP client and its 2 races on moto: exactly 12.
    assert re.search(r"(?<!\d)12 passed in ", ran.stdout), ran.stdout[-3000:]


def test_a_stateful_app_with_a_widget_of_its_own_is_refused_saying_what_to_do() -> None:
    with pytest.raises(ScaffoldError, match="STATE=1 apps show on the display host"):
        planned_files("stateful_probe", ROOT, widget=True, state=True)


def test_the_new_widget_builds_into_the_manifest(copy: Path, widgeted: str) -> None:
    modules = ROOT / "widget_bundles" / "node_modules"
    if not modules.is_dir():
        pytest.fail("widget_bundles/node_modules is missing: run `make widgets` first", pytrace=False)
    (copy / "widget_bundles" / "node_modules").symlink_to(modules)
    built = run(copy / "widget_bundles", "npm", "run", "--silent", "build")
    assert built.returncode == 0, built.stdout + built.stderr
    manifest = json.loads((copy / "widget_bundles/dist/manifest.json").read_text())
    assert {widget_entry(widgeted), "display", "chess-board", "form"} <= set(manifest["entries"])
    entry = manifest["entries"][widget_entry(widgeted)]
    assert (copy / "widget_bundles/dist" / entry["js"]).is_file()


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("Weather", "use 2 to 31 lower-case letters"),
        ("w", "use 2 to 31 lower-case letters"),
        ("news__feed", "use 2 to 31 lower-case letters, digits and single underscores, starting with a letter"),
        ("class", "that name is reserved"),
        ("chess", "lambda_src/widget_mcp/apps/chess already exists"),
    ],
)
def test_a_name_that_cannot_be_an_app_is_refused_saying_why(name: str, problem: str) -> None:
    with pytest.raises(ScaffoldError, match=f"cannot create app {name!r}: {problem}"):
        check_name(name, ROOT)
