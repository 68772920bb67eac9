"""The chess board inside the real Open WebUI page, in Chromium: shown inline in the chat, and played by clicking
it under Open WebUI's default iframe sandbox (no allow-same-origin), with no Open WebUI credential in reach."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from conftest import Server
from openwebui_client import OpenWebUIClient
from playwright.sync_api import Browser, FrameLocator, Page, expect
from widget_mcp.auth.host_tokens import HEADER, sign

EMBED = "iframe[title='Embedded Content']"


@pytest.fixture
def page(browser: Browser, admin: OpenWebUIClient) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1100, "height": 1000})
    context.set_default_timeout(30_000)
    # Signed in as the web page is: Open WebUI keeps its token in localStorage.
    context.add_init_script(f"localStorage.setItem('token', {json.dumps(admin.account.token)})")
    yield context.new_page()
    context.close()


def _open_chat(page: Page, admin: OpenWebUIClient, chat_id: str) -> FrameLocator:
    page.goto(f"{admin.base}/c/{chat_id}")
    notes = page.get_by_role("button", name="Okay, Let's Go!")  # the release notes shown on a first visit
    expect(page.locator(EMBED).first.or_(notes).first).to_be_visible()
    if notes.is_visible():
        notes.click()
    return page.frame_locator(EMBED).first.frame_locator("#widget")


def test_a_move_clicked_on_the_board_in_an_open_webui_chat_is_played_under_the_default_sandbox(
    page: Page, admin: OpenWebUIClient, server: Server
) -> None:
    chat = admin.chat('call chess_new_game {"opponent": "engine"}')
    game = json.loads(chat.message["sources"][0]["metadata"][0]["full_result"])["structuredContent"]["gameId"]
    board = _open_chat(page, admin, chat.id)
    expect(board.locator('[data-square="e2"][data-piece="wP"]')).to_be_visible()
    sandbox = page.locator(EMBED).first.get_attribute("sandbox") or ""
    assert "allow-scripts" in sandbox, sandbox
    assert "allow-same-origin" not in sandbox, sandbox

    board.locator('[data-square="e2"]').click()
    board.locator('[data-square="e4"]').click()
    expect(board.locator('[data-square="e4"][data-piece="wP"]')).to_be_visible()
    # The move and the engine's reply reached the server, in the game of the Open WebUI user who owns it.
    as_admin = {HEADER: sign(server.secret, "openwebui", admin.account.id, "call", 60)}
    deadline = time.monotonic() + 30
    while True:
        shown = server.rpc("tools/call", {"name": "chess_show_game", "arguments": {"gameId": game}}, as_admin)
        if shown["structuredContent"]["ply"] == 2 or time.monotonic() > deadline:
            break
        time.sleep(0.2)  # a poll interval inside a bounded wait
    assert shown["structuredContent"]["ply"] == 2, shown["content"]
    expect(board.locator('[data-testid="chess-status"]')).to_contain_text("White")


def test_the_embed_reaches_no_open_webui_credential(page: Page, admin: OpenWebUIClient) -> None:
    chat = admin.chat("call chess_new_game {}")
    board = _open_chat(page, admin, chat.id)
    expect(board.locator('[data-square="e2"]')).to_be_visible()
    embedded = [frame for frame in page.frames if frame.url == "about:srcdoc"]
    assert len(embedded) >= 2, "the embed and the widget inside it"
    for frame in embedded:
        reach = frame.evaluate(
            """() => {
              let storage = "blocked", cookies = "blocked", parentToken = "blocked";
              try { storage = String(localStorage.getItem("token")); } catch (e) {}
              try { cookies = document.cookie; } catch (e) {}
              try { parentToken = String(window.top.localStorage.getItem("token")); } catch (e) {}
              return { origin: self.origin, storage, cookies, parentToken };
            }"""
        )
        assert reach == {"origin": "null", "storage": "blocked", "cookies": "blocked", "parentToken": "blocked"}, reach
