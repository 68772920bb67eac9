"""Which Chromium the browser tests and benchmarks drive: the variable, Playwright's own, then system paths."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from widget_mcp.local import chromium
from widget_mcp.local.chromium import ChromiumNotFound, find_chromium


def executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def no_system_browser(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    system = tmp_path / "usr-bin-chromium"
    monkeypatch.setattr(chromium, "SYSTEM_PATHS", (str(system),))
    return system


def test_the_chromium_variable_wins_over_every_other_place(tmp_path: Path, no_system_browser: Path) -> None:
    mine = executable(tmp_path / "my" / "chrome")
    executable(no_system_browser)
    assert find_chromium({"CHROMIUM": str(mine)}, home=tmp_path) == str(mine)


def test_a_browser_playwright_installed_comes_before_the_system_one(tmp_path: Path, no_system_browser: Path) -> None:
    older = executable(tmp_path / "pw" / "chromium-1100" / "chrome-linux" / "chrome")
    newer = executable(tmp_path / "pw" / "chromium-1200" / "chrome-linux" / "chrome")
    executable(no_system_browser)
    found = find_chromium({"PLAYWRIGHT_BROWSERS_PATH": str(tmp_path / "pw")}, home=tmp_path)
    assert found == str(newer)
    assert found != str(older)


def test_the_system_chromium_is_used_when_nothing_else_is_there(tmp_path: Path, no_system_browser: Path) -> None:
    executable(no_system_browser)
    assert find_chromium({}, home=tmp_path) == str(no_system_browser)


def test_without_any_browser_the_error_names_every_place_looked_and_how_to_install(
    tmp_path: Path, no_system_browser: Path
) -> None:
    with pytest.raises(ChromiumNotFound) as caught:
        find_chromium({"CHROMIUM": str(tmp_path / "nothing")}, home=tmp_path)

    message = str(caught.value)
    assert f"$CHROMIUM = {tmp_path / 'nothing'} (not an executable file)" in message
    assert str(tmp_path / ".cache" / "ms-playwright") in message
    assert str(no_system_browser) in message
    assert "apt-get install chromium" in message
    assert "brew install --cask chromium" in message
