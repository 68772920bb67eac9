"""`make app NAME=…` (plain, WIDGET=1 or STATE=1) writes files that ruff checks and formats as they are, whatever the
app's name: its modules sort before or after `widget_mcp.apps.registry` by the name, and lines that carry it grow with
it (2 to 31 characters)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from widget_mcp.local.scaffold_state_templates import state_app_files
from widget_mcp.local.scaffold_templates import app_files

ROOT = Path(__file__).resolve().parents[2]
RUFF = Path(sys.executable).parent / "ruff"


KINDS: dict[str, Callable[[str], dict[Path, str]]] = {
    "stateful": state_app_files,
    "display host": lambda name: app_files(name, widget=False),
    "widget": lambda name: app_files(name, widget=True),
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["alpha_list", "team_list", "zoo", "z" * 31])
def test_a_new_apps_generated_files_pass_ruff_whatever_its_name(kind: str, name: str, tmp_path: Path) -> None:
    # the project's ruff config and its package layout, which tell ruff what is first-party
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    for package in ("lambda_src/widget_mcp", "lambda_src/widget_mcp/apps"):
        (tmp_path / package).mkdir(parents=True, exist_ok=True)
        (tmp_path / package / "__init__.py").touch()
    files = KINDS[kind](name)
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    for command in (["check"], ["format", "--check", "--diff"]):
        ran = subprocess.run(
            [str(RUFF), *command, "--no-cache", *map(str, files)],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            check=False,
        )
        assert ran.returncode == 0, ran.stdout
