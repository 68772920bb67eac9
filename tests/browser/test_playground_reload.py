"""The playground under `make dev`'s reloads: when the app restarts with a new template for the widget on show, the
frame is rendered again from it, with the same tool call's result (no new call), and says so."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_support import ROOT, DevServer, chess, open_new_game, widget
from playwright.sync_api import Page, expect
from widget_mcp.local.process import local_server

MANIFEST = ROOT / "widget_bundles" / "dist" / "manifest.json"
RELOAD_MS = 60_000  # a bound, not a wait: a reload takes about a second


@pytest.fixture
def manifest(tmp_path: Path) -> Path:
    """A copy of the built manifest for the server to read (and this test to change), so Vite is not started."""
    copy = tmp_path / "manifest.json"
    copy.write_text(MANIFEST.read_text())
    return copy


@pytest.fixture
def reloading_server(manifest: Path) -> Iterator[DevServer]:
    with local_server("browser-reload-state", reload=True, settings={"WIDGET_MANIFEST": str(manifest)}) as server:
        assert "widgets not watched (WIDGET_MANIFEST names another build)" in "".join(server.output)
        yield DevServer(server.base)


def rebuild_chess_board(manifest: Path) -> None:
    """What a rebuild of the chess bundle does to the manifest, with files that exist: its shell changes (one
    stylesheet listed twice), so its template gets a new URI. Written whole, as a rename."""
    data = json.loads(manifest.read_text())
    entry = data["entries"]["chess-board"]
    entry["css"] = [*entry["css"], entry["css"][0]]
    written = manifest.with_suffix(".next")
    written.write_text(json.dumps(data))
    written.replace(manifest)


def test_a_new_template_after_a_reload_renders_the_frame_again_with_the_same_result(
    page: Page, reloading_server: DevServer, manifest: Path
) -> None:
    frame = open_new_game(page, reloading_server)
    iframe = page.locator('[data-testid="widget-frame"]')
    before = iframe.get_attribute("data-template-uri") or ""
    game = chess(frame).get_attribute("data-game-id")
    assert before.startswith("ui://widget/chess-board-")
    assert game

    rebuild_chess_board(manifest)

    expect(iframe).not_to_have_attribute("data-template-uri", before, timeout=RELOAD_MS)
    after = iframe.get_attribute("data-template-uri") or ""
    assert after.startswith("ui://widget/chess-board-")
    expect(page.locator('[data-testid="chat-note"]')).to_have_text(
        f"New template {after}: the widget is shown again, with the same result."
    )
    expect(chess(widget(page))).to_have_attribute("data-game-id", game)
    expect(chess(widget(page))).to_have_attribute("data-ply", "0")
    tool_calls = page.locator('[data-testid="chat-tool"]', has_text="→ chess_new_game")
    expect(tool_calls).to_have_count(1)  # rendered again, not called again
