"""The chess board inside the real Open WebUI page, in Chromium: shown inline in the chat, and played by clicking
it under Open WebUI's default iframe sandbox (no allow-same-origin), with no Open WebUI credential in reach."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from conftest import Server, eventually
from openwebui_client import OpenWebUIClient
from openwebui_page import EMBED, open_chat, signed_in_page
from playwright.sync_api import Browser, Page, expect


@pytest.fixture
def page(browser: Browser, admin: OpenWebUIClient) -> Iterator[Page]:
    with signed_in_page(browser, admin) as page:
        yield page


def test_a_move_clicked_on_the_board_in_an_open_webui_chat_is_played_under_the_default_sandbox(
    page: Page, admin: OpenWebUIClient, server: Server
) -> None:
    chat = admin.chat('call chess_new_game {"opponent": "engine"}')
    game = json.loads(chat.message["sources"][0]["metadata"][0]["full_result"])["structuredContent"]["gameId"]
    board = open_chat(page, admin, chat.id)
    expect(board.locator('[data-square="e2"][data-piece="wP"]')).to_be_visible()
    sandbox = page.locator(EMBED).first.get_attribute("sandbox") or ""
    assert "allow-scripts" in sandbox, sandbox
    assert "allow-same-origin" not in sandbox, sandbox

    board.locator('[data-square="e2"]').click()
    board.locator('[data-square="e4"]').click()
    expect(board.locator('[data-square="e4"][data-piece="wP"]')).to_be_visible()
    # The move and the engine's reply reached the server, in the game of the Open WebUI user who owns it.
    shown = eventually(
        lambda: server.call_as(admin.account.id, "chess_show_game", {"gameId": game}),
        lambda shown: shown["structuredContent"]["ply"] == 2,
    )
    assert shown["structuredContent"]["ply"] == 2, shown["content"]
    expect(board.locator('[data-testid="chess-status"]')).to_contain_text("White")


def test_the_embed_reaches_no_open_webui_credential(page: Page, admin: OpenWebUIClient) -> None:
    chat = admin.chat("call chess_new_game {}")
    board = open_chat(page, admin, chat.id)
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
