"""`make format`, and `make test-app` naming it: code pasted with a blank line too many stops `make test-app` at the
format check with the command that fixes it, which does, in a copy of this repository."""

from __future__ import annotations

import sys
from pathlib import Path

from readme_tutorial import unused_name
from repo_copy import copy_repo, run_in

VENV = Path(sys.executable).parent.parent


def make(copy: Path, *args: str) -> tuple[int, str, str]:
    # This venv stands in for the copy's; -o: it is not installed again.
    ran = run_in(copy, "make", "--no-print-directory", "-o", f"{VENV}/.synced-test", *args, f"VENV={VENV}")
    return ran.returncode, ran.stdout, ran.stderr


def test_an_app_formatted_otherwise_is_named_with_the_fix_and_make_format_fixes_it(tmp_path: Path) -> None:
    copy = copy_repo(tmp_path)
    name = unused_name(copy, "tidy")
    made = run_in(copy, sys.executable, "-m", "widget_mcp.local.scaffold", name)
    assert made.returncode == 0, made.stderr
    tools = copy / f"lambda_src/widget_mcp/apps/{name}/tools.py"
    tools.write_text(tools.read_text() + "\n\n\n\nLIMIT = 3\n")  # three blank lines where ruff keeps two

    code, out, err = make(copy, "test-app", f"NAME={name}")
    assert code != 0
    assert "1 file would be reformatted" in out
    assert f"`make format NAME={name}` rewrites them" in err

    code, out, err = make(copy, "format", f"NAME={name}")
    assert code == 0, out + err
    assert "1 file reformatted" in out
    code, out, err = make(copy, "test-app", f"NAME={name}")
    assert code == 0, out[-2000:] + err[-2000:]


def test_make_lint_names_make_format_when_the_formatting_differs(tmp_path: Path) -> None:
    copy = copy_repo(tmp_path)
    (copy / "tests/unit/test_spacing.py").write_text('"""Spacing."""\n\n\n\nLIMIT = 3\n')
    code, _, err = make(copy, "lint")
    assert code != 0
    assert "`make format` rewrites them" in err
