"""The widget kit a generated project links: each folder its Makefile asks for is where the toolkit keeps it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from widget_mcp.project.widget_kit import FOLDERS, main
from widget_mcp.project.widget_templates import MAKE_RULES, VITE_CONFIG


@pytest.mark.parametrize("folder", sorted(FOLDERS))
def test_each_folder_the_projects_makefile_links_is_printed_and_exists(
    folder: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert f"widget_kit {folder})" in MAKE_RULES
    assert main([folder]) == 0
    printed = capsys.readouterr().out.strip()
    assert printed.endswith(folder)
    assert any(path.suffix == ".ts" for path in Path(printed).iterdir())


def test_what_the_projects_vite_config_imports_from_the_kit_is_there(capsys: pytest.CaptureFixture[str]) -> None:
    main(["plugins"])
    plugins = Path(capsys.readouterr().out.strip())
    for module in re.findall(r'from "\./plugins/([^"]+)"', VITE_CONFIG):
        assert (plugins / module).is_file(), module


def test_a_folder_the_kit_does_not_have_is_refused_with_the_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["src"]) == 2
    assert "usage" in capsys.readouterr().err
