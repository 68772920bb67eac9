"""The chess board's layouts in the playground: at phone widths (a touch screen 320, 375 and 414 px wide) it fits with
no sideways scroll, every square big enough to tap and a move made by tapping; fullscreen, asked of the host in
either dialect, puts the board and the move list side by side and the same button brings it back inline; captured
pieces read as labelled material counts. Each phone width leaves a screenshot in build/browser-artifacts/layouts/
(BROWSER_ARTIFACTS elsewhere), never in the repository."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from browser_support import (
    ROOT,
    DevServer,
    assert_board_fits_a_phone,
    chess,
    click_move,
    phone_page,
    square,
    widget,
    widget_frame,
)
from playwright.sync_api import Browser, FrameLocator, Page, expect

SCREENSHOTS = os.environ.get("BROWSER_ARTIFACTS", str(ROOT / "build" / "browser-artifacts"))
PHONE_WIDTHS = [320, 375, 414]
DIALECTS = {"mcp-apps": {}, "openai": {"host": "chatgpt", "bridge": "openai"}}


def box(view: FrameLocator, selector: str) -> dict[str, float]:
    found = view.locator(selector).bounding_box()
    assert found is not None, f"{selector} is not drawn"
    return found


@pytest.fixture(params=PHONE_WIDTHS, ids=lambda width: f"{width}px")
def phone(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    with phone_page(browser, request.param) as page:
        yield page


def test_at_phone_widths_the_board_fits_every_square_can_be_tapped_and_a_tap_plays_a_move(
    phone: Page, dev_server: DevServer
) -> None:
    width = phone.viewport_size["width"] if phone.viewport_size else 0
    phone.goto(dev_server.playground("chess_new_game", {}))
    view = widget(phone)
    expect(chess(view)).to_have_attribute("data-ply", "0")
    # Below the playground's form on a phone: the widget measures itself only once it is on screen.
    phone.locator('[data-testid="widget-frame"]').scroll_into_view_if_needed()
    assert_board_fits_a_phone(widget_frame(phone), width)
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= width  # the page does not scroll sideways
    frame_box = phone.locator('[data-testid="widget-frame"]').bounding_box()
    assert frame_box is not None
    assert frame_box["x"] >= 0
    assert frame_box["x"] + frame_box["width"] <= width
    os.makedirs(f"{SCREENSHOTS}/layouts", exist_ok=True)
    phone.screenshot(path=f"{SCREENSHOTS}/layouts/chess-{width}px.png", full_page=True)

    square(view, "e2").tap()
    expect(view.locator(".sq.target")).to_have_count(2)
    square(view, "e4").tap()
    expect(chess(view)).to_have_attribute("data-ply", "1")
    expect(square(view, "e4")).to_have_attribute("data-piece", "wP")
    expect(view.locator('[data-testid="chess-status"]')).to_have_text("Black to move")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_fullscreen_puts_the_move_list_beside_a_bigger_board_and_the_same_button_brings_it_back_inline(
    page: Page, dev_server: DevServer, dialect: str
) -> None:
    page.goto(dev_server.playground("chess_new_game", {}, **DIALECTS[dialect]))
    view = widget(page)
    expect(chess(view)).to_have_attribute("data-ply", "0")
    expect(view.locator("html")).to_have_attribute("data-bridge", dialect)
    click_move(view, "e2", "e4", ply_after=1)
    inline_board = box(view, ".wm-board")
    assert box(view, '[data-testid="move-list"]')["y"] >= inline_board["y"] + inline_board["height"]

    button = view.locator('[data-testid="chess-fullscreen"]')
    expect(button).to_have_attribute("aria-pressed", "false")
    button.click()
    expect(chess(view)).to_have_attribute("data-display-mode", "fullscreen")
    frame = page.locator('[data-testid="widget-frame"]')
    expect(frame).to_have_attribute("data-display-mode", "fullscreen")
    assert frame.bounding_box() == {"x": 0, "y": 0, "width": 1280, "height": 1000}  # the host gave it the window
    board = box(view, ".wm-board")
    moves = box(view, '[data-testid="move-list"]')
    assert moves["x"] >= board["x"] + board["width"]  # side by side
    assert moves["y"] < board["y"] + board["height"]
    assert board["width"] > inline_board["width"] * 1.5
    assert board["y"] + board["height"] <= 1000  # the whole board on screen, no scrolling to reach a rank
    expect(view.locator('[data-testid="move-list"] .san')).to_have_text(["e4"])
    expect(button).to_have_attribute("aria-pressed", "true")

    button.focus()
    page.keyboard.press("Enter")  # back inline, from the keyboard: the focus stays on the button
    expect(chess(view)).to_have_attribute("data-display-mode", "inline")
    expect(frame).to_have_attribute("data-display-mode", "inline")
    expect(button).to_be_focused()
    expect(button).to_have_attribute("aria-pressed", "false")
    assert box(view, ".wm-board")["width"] == pytest.approx(inline_board["width"], abs=1)
    click_move(view, "e7", "e5", ply_after=2)  # and the board still plays


def test_captured_pieces_are_counted_by_kind_with_the_material_lead(page: Page, dev_server: DevServer) -> None:
    page.goto(dev_server.playground("chess_new_game", {}))
    view = widget(page)
    white = view.locator('[data-testid="captured-white"]')
    black = view.locator('[data-testid="captured-black"]')
    expect(white).to_have_text("White has captured: nothing")
    for ply, (origin, target) in enumerate([("e2", "e4"), ("d7", "d5"), ("e4", "d5"), ("e7", "e6")], start=1):
        click_move(view, origin, target, ply_after=ply)
    expect(white).to_have_text("White has captured: 1 pawn (+1), 1 point ahead")
    click_move(view, "d5", "e6", ply_after=5)
    expect(white).to_have_text("White has captured: 2 pawns (+2), 2 points ahead")
    expect(white.locator(".lead")).to_have_attribute("aria-hidden", "true")  # read as "2 points ahead" instead
    expect(black).to_have_text("Black has captured: nothing")
    click_move(view, "c8", "e6", ply_after=6)
    expect(black).to_have_text("Black has captured: 1 pawn")
    expect(white).to_have_text("White has captured: 2 pawns (+1), 1 point ahead")
    click_move(view, "g1", "f3", ply_after=7)
    click_move(view, "e6", "a2", ply_after=8)
    click_move(view, "a1", "a2", ply_after=9)
    expect(white).to_have_text("White has captured: 2 pawns, 1 bishop (+3), 3 points ahead")
    expect(black).to_have_text("Black has captured: 2 pawns")
