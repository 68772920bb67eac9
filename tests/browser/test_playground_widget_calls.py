"""Calls a widget makes through the playground (MCP Apps `tools/call`, or `window.openai.callTool`) show their
result in the chat, as a call made from the playground does: the narration, or the error."""

from __future__ import annotations

from typing import Any

import pytest
from browser_support import CHATGPT, DevServer, chess, click_move, square, widget
from playwright.sync_api import Page, expect

# Each bridge a widget may call through, and the identity a call made elsewhere needs to reach the same game.
BRIDGES: list[tuple[dict[str, str], str, dict[str, Any] | None]] = [
    ({"host": "mcp-apps"}, "mcp-apps", None),
    ({"host": "chatgpt", "bridge": "openai"}, "openai", CHATGPT),
]
IDS = ["mcp-apps-tools-call", "window-openai-callTool"]


@pytest.mark.parametrize(("host", "bridge", "meta"), BRIDGES, ids=IDS)
def test_a_move_made_on_the_board_shows_its_result_in_the_chat(
    page: Page, dev_server: DevServer, host: dict[str, str], bridge: str, meta: dict[str, Any] | None
) -> None:
    page.goto(dev_server.playground("chess_new_game", {}, **host))
    frame = widget(page)
    expect(frame.locator("html")).to_have_attribute("data-bridge", bridge)
    click_move(frame, "e2", "e4", ply_after=1)
    request = page.locator('[data-testid="chat-tool"][data-origin="widget"]')
    expect(request).to_contain_text("widget → chess_move")
    answer = page.locator('[data-testid="chat-widget-result"][data-tool="chess_move"]')
    expect(answer).to_have_attribute("data-outcome", "ok")
    expect(answer).to_have_class("bubble assistant")  # as an answer to a call made from the playground
    expect(answer).to_contain_text("chess_move: ")
    expect(answer).to_contain_text("e4")


@pytest.mark.parametrize(("host", "bridge", "meta"), BRIDGES, ids=IDS)
def test_a_move_the_server_refuses_shows_its_error_in_the_chat(
    page: Page, dev_server: DevServer, host: dict[str, str], bridge: str, meta: dict[str, Any] | None
) -> None:
    page.goto(dev_server.playground("chess_new_game", {}, **host))
    frame = widget(page)
    expect(chess(frame)).to_have_attribute("data-ply", "0")
    game_id = chess(frame).get_attribute("data-game-id")
    assert game_id
    elsewhere = dev_server.call_tool("chess_move", {"gameId": game_id, "move": "e4", "expectedPly": 0}, meta)
    assert elsewhere["isError"] is False
    square(frame, "d2").click()
    square(frame, "d4").click()  # sent with expectedPly 0, but the game is at ply 1
    answer = page.locator('[data-testid="chat-widget-result"][data-tool="chess_move"]')
    expect(answer).to_have_attribute("data-outcome", "error")
    expect(answer).to_have_class("bubble error")
    expect(answer).to_contain_text("chess_move: ")
    expect(frame.locator('[data-testid="chess-message"]')).to_have_attribute("data-code", "conflict")
