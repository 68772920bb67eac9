"""The README's "Build your own app" tutorial, run as written in a copy of the repository: scaffold, add the
tool and its test, then lint, type-check and run the app's tests."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from repo_copy import ROOT, copy_repo, run_in

VENV_BIN = Path(sys.executable).parent
STEP = re.compile(r"<!-- tutorial: (run|append (\S+)) -->\n```\w+\n(.*?)```", re.S)


def tutorial() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("## Build your own app")
    return text[start : text.index("\n## ", start + 1)]


def test_the_tutorial_has_its_steps_in_order() -> None:
    kinds = [match.group(1).split()[0] for match in STEP.finditer(tutorial())]
    assert kinds == ["run", "append", "append"]


@pytest.fixture(scope="module")
def followed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = copy_repo(tmp_path_factory.mktemp("repo"))
    for match in STEP.finditer(tutorial()):
        if match.group(1) == "run":
            for line in match.group(3).splitlines():
                command = shlex.split(line, comments=True)
                # `make app NAME=x` is the scaffold module; run directly, the copy needs no venv of its own.
                assert command[:2] == ["make", "app"], command
                name = dict(arg.split("=", 1) for arg in command[2:])["NAME"]
                made = run_in(copy, sys.executable, "-m", "widget_mcp.local.scaffold", name)
                assert made.returncode == 0, made.stderr
        else:
            target = copy / match.group(2)
            assert target.is_file(), f"the tutorial appends to {match.group(2)}, which the scaffold did not write"
            target.write_text(target.read_text() + "\n\n" + match.group(3))
    return copy


def test_the_code_the_tutorial_adds_is_lint_clean_as_written(followed: Path) -> None:
    paths = ["lambda_src/widget_mcp/apps/weather", "tests/functional/test_weather_tools.py"]
    lint = run_in(followed, str(VENV_BIN / "ruff"), "check", *paths)
    formatted = run_in(followed, str(VENV_BIN / "ruff"), "format", "--check", *paths)
    assert lint.returncode == 0, lint.stdout
    assert formatted.returncode == 0, formatted.stdout


def test_the_tutorials_app_passes_its_tests_including_the_one_the_tutorial_adds(followed: Path) -> None:
    tests = ["tests/unit/weather", "tests/functional/test_weather_tools.py", "tests/functional/test_request_limits.py"]
    ran = run_in(followed, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests)
    assert ran.returncode == 0, ran.stdout[-3000:]
    assert (
        "test_words_are_counted_and_shown_in_a_table"
        in run_in(followed, sys.executable, "-m", "pytest", "--collect-only", "-q", tests[1]).stdout
    )


def test_the_playground_link_calls_the_tutorials_tool_with_valid_arguments() -> None:
    link = re.search(r"<(http://127\.0\.0\.1:8000/playground\?[^>]+)>", tutorial())
    assert link is not None
    query = parse_qs(urlsplit(link.group(1)).query)
    assert query["tool"] == ["weather_count_words"]
    assert query["args"] == ['{"text":"one two"}']
