"""The display host (seed 000) in the playground: widgets in order, by type, with fallbacks."""

from __future__ import annotations

from typing import Any

from browser_support import DevServer, widget
from playwright.sync_api import Page, expect


def display_result(*widgets: dict[str, Any]) -> dict[str, Any]:
    return {
        "content": [{"type": "text", "text": "shown"}],
        "structuredContent": {},
        "_meta": {"widgets": [{"type": "widget", **w} for w in widgets]},
        "isError": False,
    }


def test_display_demo_renders_its_text_and_table_widgets_in_the_order_emitted(
    page: Page, dev_server: DevServer
) -> None:
    page.goto(dev_server.playground("display_demo", {"message": "three little words"}))
    frame = widget(page)
    boxes = frame.locator("[data-widget]")
    expect(boxes).to_have_count(2)
    expect(boxes.nth(0)).to_have_attribute("data-widget", "text")
    expect(boxes.nth(0)).to_have_text("three little words")
    expect(boxes.nth(1)).to_have_attribute("data-widget", "table")
    expect(boxes.nth(1).locator("tr")).to_have_count(2)
    expect(boxes.nth(1).locator("tr").nth(1)).to_have_text("words3")
    expect(frame.locator("[data-fallback]")).to_have_count(0)


def test_an_unknown_widget_type_shows_its_fallback_between_known_ones(page: Page, dev_server: DevServer) -> None:
    result = display_result(
        {"widget": "text", "data": {"text": "before"}, "fallback": "before"},
        {"widget": "weather-forecast", "data": {"city": "Oslo"}, "fallback": "Oslo: 3 °C, snow"},
        {"widget": "table", "data": {"rows": [["after", "1"]]}, "fallback": "after: 1"},
    )
    page.goto(dev_server.preview("display", result))
    frame = widget(page)
    expect(frame.locator("[data-widget]")).to_have_count(3)
    unknown = frame.locator('[data-widget="weather-forecast"]')
    expect(unknown.locator("[data-fallback]")).to_have_text("Oslo: 3 °C, snow")
    expect(frame.locator("[data-fallback]")).to_have_count(1)
    expect(frame.locator('[data-widget="table"] td')).to_have_text("1")


def test_a_widget_whose_data_its_renderer_cannot_use_shows_its_fallback(page: Page, dev_server: DevServer) -> None:
    result = display_result(
        {"widget": "chess-board", "data": {"no": "fen"}, "fallback": "a board that cannot be drawn"},
        {"widget": "move-list", "data": "not a list", "fallback": "1. e4"},
    )
    page.goto(dev_server.preview("display", result))
    frame = widget(page)
    expect(frame.locator('[data-widget="chess-board"] [data-fallback]')).to_have_text("a board that cannot be drawn")
    expect(frame.locator('[data-widget="move-list"] [data-fallback]')).to_have_text("1. e4")


def test_a_game_shows_as_a_board_snapshot_and_a_move_list(page: Page, dev_server: DevServer) -> None:
    game = {
        "gameId": "g1",
        "fen": "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
        "turn": "white",
        "status": "active",
        "winner": None,
        "ply": 2,
        "check": False,
        "lastMove": {"uci": "e7e5", "san": "e5", "from": "e7", "to": "e5"},
    }
    result = display_result(
        {"widget": "chess-board", "data": game, "fallback": "board"},
        {"widget": "move-list", "data": {"moves": ["e4", "e5"], "pgn": "1. e4 e5 *"}, "fallback": "1. e4 e5"},
    )
    page.goto(dev_server.preview("display", result))
    frame = widget(page)
    board = frame.locator('[data-widget="chess-board"]')
    expect(board.locator("[data-square]")).to_have_count(64)
    expect(board.locator('[data-square="e5"]')).to_have_attribute("data-piece", "bP")
    expect(board.locator('[data-testid="chess-status"]')).to_have_text("White to move")
    expect(frame.locator('[data-widget="move-list"] .san')).to_have_text(["e4", "e5"])


def test_a_game_shown_with_chess_show_game_renders_its_display_widgets(page: Page, dev_server: DevServer) -> None:
    game = dev_server.call_tool("chess_new_game", {})
    game_id = game["structuredContent"]["gameId"]
    dev_server.call_tool("chess_move", {"gameId": game_id, "move": "e4"})
    page.goto(dev_server.playground("chess_show_game", {"gameId": game_id}))
    frame = widget(page)
    expect(frame.locator('[data-square="e4"]').first).to_have_attribute("data-piece", "wP")
    expect(frame.locator('[data-testid="move-list"]').first).to_contain_text("e4")
