"""The chess board played with the keyboard alone, as a screen-reader user plays it: Tab reaches the board (one
tab stop), the arrow keys move the focus, Enter or Space picks a piece up and puts it down, Escape cancels, the
promotion picker keeps the focus while it is open, and a polite live region says what happened."""

from __future__ import annotations

import re

import chess_keyboard as keyboard
from browser_support import DevServer, ToolCalls, chess, open_new_game, square, widget_frame
from chess_keyboard import focused, focused_promotion, play, walk_to
from playwright.sync_api import Frame, Page, expect

ANNOUNCER = '[data-testid="chess-announcer"]'


def tab_to_board(page: Page) -> Frame:
    frame = widget_frame(page)
    keyboard.tab_to_board(page, frame)
    return frame


def test_a_game_is_played_to_checkmate_with_the_keyboard_alone_and_every_move_is_announced(
    page: Page, dev_server: DevServer
) -> None:
    view = open_new_game(page, dev_server)
    frame = tab_to_board(page)
    expect(view.locator('.wm-board [tabindex="0"]')).to_have_count(1)  # one tab stop for the whole board
    announcer = view.locator(ANNOUNCER)

    walk_to(page, frame, "f2")
    expect(square(view, "f2")).to_have_attribute("aria-label", "f2, white pawn")
    page.keyboard.press("Enter")
    expect(announcer).to_have_text("White pawn on f2 picked up, 2 legal moves: f3, f4.")
    expect(square(view, "f3")).to_have_attribute("aria-label", "f3, empty, legal move")
    walk_to(page, frame, "f3")
    page.keyboard.press("Enter")
    expect(chess(view)).to_have_attribute("data-ply", "1")
    expect(announcer).to_have_text("White played pawn f3. Black to move.")
    assert focused(frame) == "f3"
    expect(square(view, "f3")).to_have_attribute("aria-label", "f3, white pawn, moved here")

    play(page, frame, view, "e7", "e5", ply_after=2)
    expect(announcer).to_have_text("Black played pawn e5. White to move.")
    play(page, frame, view, "g2", "g4", ply_after=3)
    expect(announcer).to_have_text("White played pawn g4. Black to move.")
    play(page, frame, view, "d8", "h4", ply_after=4)

    expect(announcer).to_have_text("Black played queen h4, checkmate. Checkmate — Black wins.")
    expect(view.locator('[data-testid="chess-status"]')).to_have_text("Checkmate — Black wins")
    expect(chess(view)).to_have_attribute("data-status", "checkmate")
    expect(square(view, "e1")).to_have_attribute("aria-label", re.compile(r"^e1, white king, in check"))
    walk_to(page, frame, "e1")
    page.keyboard.press("Enter")  # the game is over: nothing to pick up, and the board says why
    expect(announcer).to_have_text("Checkmate — Black wins")
    expect(view.locator(".sq.selected")).to_have_count(0)


def test_escape_puts_a_picked_up_piece_back_and_an_illegal_square_is_refused_without_a_server_call(
    page: Page, dev_server: DevServer
) -> None:
    view = open_new_game(page, dev_server)
    calls = ToolCalls(page)
    frame = tab_to_board(page)
    announcer = view.locator(ANNOUNCER)
    walk_to(page, frame, "g1")
    page.keyboard.press("Enter")
    expect(view.locator(".sq.target")).to_have_count(2)
    page.keyboard.press("Escape")
    expect(view.locator(".sq.selected, .sq.target")).to_have_count(0)
    expect(announcer).to_have_text("Move cancelled.")
    assert focused(frame) == "g1"

    page.keyboard.press("Enter")
    walk_to(page, frame, "g3")
    page.keyboard.press("Enter")
    message = view.locator('[data-testid="chess-message"]')
    expect(message).to_have_attribute("data-code", "illegal_move")
    expect(message).to_have_text("The white knight on g1 cannot move to g3.")
    expect(message).to_have_attribute("role", "alert")
    assert focused(frame) == "g3"

    walk_to(page, frame, "e4")
    page.keyboard.press("Enter")  # an empty square with nothing picked up
    expect(announcer).to_have_text("Pick up a white piece first; e4 has none.")
    play(page, frame, view, "e2", "e4", ply_after=1)
    expect(message).to_have_count(0)
    assert calls.names() == ["chess_move"]  # the refused move never reached the server


def test_the_promotion_picker_is_played_with_the_keyboard_and_keeps_the_focus_while_open(
    page: Page, dev_server: DevServer
) -> None:
    view = open_new_game(page, dev_server, fen="8/4P3/8/8/8/8/k6p/4K3 w - - 0 1")
    calls = ToolCalls(page)
    frame = tab_to_board(page)
    picker = view.locator('[data-testid="promotion-picker"]')
    walk_to(page, frame, "e7")
    page.keyboard.press("Enter")
    walk_to(page, frame, "e8")
    page.keyboard.press("Enter")
    expect(picker).to_be_visible()
    expect(picker).to_have_attribute("aria-modal", "true")
    assert focused_promotion(frame) == "q"
    for expected in ["r", "b", "n", "", "q"]:  # Tab goes round the picker's five buttons and never leaves it
        page.keyboard.press("Tab")
        assert focused_promotion(frame) == expected
    page.keyboard.press("Shift+Tab")
    assert focused_promotion(frame) == ""
    page.keyboard.press("Escape")
    expect(picker).to_have_count(0)
    assert focused(frame) == "e7"  # back where the move started, nothing sent
    assert calls.names() == []

    page.keyboard.press("Enter")
    walk_to(page, frame, "e8")
    page.keyboard.press("Enter")
    expect(picker).to_be_visible()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert focused_promotion(frame) == "n"
    page.keyboard.press("Enter")
    expect(chess(view)).to_have_attribute("data-ply", "1")
    expect(square(view, "e8")).to_have_attribute("data-piece", "wN")
    expect(view.locator(ANNOUNCER)).to_have_text("White played pawn e8 promotes to knight. Black to move.")
    assert focused(frame) == "e8"
    assert [c["arguments"].get("promotion") for c in calls.sent] == ["n"]


def test_against_the_engine_the_players_move_and_the_engines_reply_are_both_announced(
    page: Page, dev_server: DevServer
) -> None:
    view = open_new_game(page, dev_server, opponent="engine")
    frame = tab_to_board(page)
    play(page, frame, view, "e2", "e4", ply_after=2)
    said = re.compile(r"^You played pawn e4\. The engine replied \w+ .+\. White to move\.$")
    expect(view.locator(ANNOUNCER)).to_have_text(said)
    expect(view.locator(".sq.last[aria-label*='moved here'][data-piece^='b']")).to_have_count(1)
