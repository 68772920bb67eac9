"""The chess board widget in the playground: moves by click and drag, the engine, mate, conflicts, promotion, flip.
(Illegal moves: test_chess_board_legality.py; the keyboard: test_chess_board_keyboard.py.)"""

from __future__ import annotations

import re

from browser_support import DevServer, chess, click_move, open_new_game, square
from playwright.sync_api import Page, expect


def test_a_new_game_shows_every_piece_on_its_start_square_and_white_to_move(page: Page, dev_server: DevServer) -> None:
    frame = open_new_game(page, dev_server)
    expect(frame.locator("[data-square]")).to_have_count(64)
    expect(frame.locator("[data-piece]")).to_have_count(32)
    expect(square(frame, "e1")).to_have_attribute("data-piece", "wK")
    expect(square(frame, "d8")).to_have_attribute("data-piece", "bQ")
    expect(square(frame, "e4")).not_to_have_attribute("data-piece", re.compile(".*"))
    expect(frame.locator('[data-testid="chess-status"]')).to_have_text("White to move")


def test_clicking_a_piece_shows_its_legal_moves_and_clicking_a_target_plays_it(
    page: Page, dev_server: DevServer
) -> None:
    frame = open_new_game(page, dev_server)
    square(frame, "g1").click()
    expect(frame.locator(".sq.target")).to_have_count(2)  # Nf3 and Nh3
    expect(square(frame, "f3")).to_have_class(re.compile(r"\btarget\b"))
    square(frame, "f3").click()
    expect(chess(frame)).to_have_attribute("data-ply", "1")
    expect(square(frame, "f3")).to_have_attribute("data-piece", "wN")
    expect(square(frame, "g1")).not_to_have_attribute("data-piece", re.compile(".*"))
    expect(frame.locator('[data-testid="chess-status"]')).to_have_text("Black to move")
    expect(frame.locator('[data-testid="move-list"]')).to_contain_text("Nf3")


def test_dragging_a_piece_to_a_square_plays_the_move(page: Page, dev_server: DevServer) -> None:
    frame = open_new_game(page, dev_server)
    square(frame, "e2").drag_to(square(frame, "e4"))
    expect(chess(frame)).to_have_attribute("data-ply", "1")
    expect(square(frame, "e4")).to_have_attribute("data-piece", "wP")
    square(frame, "b8").drag_to(square(frame, "c6"))
    expect(chess(frame)).to_have_attribute("data-ply", "2")
    expect(square(frame, "c6")).to_have_attribute("data-piece", "bN")


def test_the_engine_reply_appears_on_the_board_without_a_reload(page: Page, dev_server: DevServer) -> None:
    frame = open_new_game(page, dev_server, opponent="engine")
    click_move(frame, "e2", "e4", ply_after=2)  # the player's move and the engine's reply, in one call
    expect(frame.locator('[data-testid="chess-status"]')).to_have_text("White to move")
    black_moved = frame.locator(".sq.last[data-piece^='b']")
    expect(black_moved).to_have_count(1)  # the engine's last move is highlighted on its destination
    expect(frame.locator('[data-testid="move-list"] .san')).to_have_count(2)


def test_the_four_move_mate_ends_the_game_with_checkmate_in_the_status(page: Page, dev_server: DevServer) -> None:
    frame = open_new_game(page, dev_server)
    for ply, (origin, target) in enumerate(
        [("e2", "e4"), ("e7", "e5"), ("f1", "c4"), ("b8", "c6"), ("d1", "h5"), ("g8", "f6"), ("h5", "f7")], start=1
    ):
        click_move(frame, origin, target, ply_after=ply)
    status = frame.locator('[data-testid="chess-status"]')
    expect(status).to_have_text(re.compile(r"Checkmate.*White wins"))
    expect(chess(frame)).to_have_attribute("data-status", "checkmate")
    expect(square(frame, "e8")).to_have_class(re.compile(r"\bcheck\b"))


def test_a_move_made_behind_the_widgets_back_is_reported_as_a_conflict_and_the_board_catches_up(
    page: Page, dev_server: DevServer
) -> None:
    frame = open_new_game(page, dev_server)
    game_id = chess(frame).get_attribute("data-game-id")
    assert game_id
    elsewhere = dev_server.call_tool("chess_move", {"gameId": game_id, "move": "e4", "expectedPly": 0})
    assert elsewhere["isError"] is False
    square(frame, "d2").click()
    square(frame, "d4").click()  # sent with expectedPly 0, but the game is at ply 1
    message = frame.locator('[data-testid="chess-message"]')
    expect(message).to_have_attribute("data-code", "conflict")
    expect(chess(frame)).to_have_attribute("data-ply", "1")
    expect(square(frame, "e4")).to_have_attribute("data-piece", "wP")
    expect(square(frame, "d2")).to_have_attribute("data-piece", "wP")
    expect(frame.locator('[data-testid="chess-status"]')).to_have_text("Black to move")
    click_move(frame, "e7", "e5", ply_after=2)  # and play goes on from the reloaded state
    expect(message).to_have_count(0)


def test_a_pawn_reaching_the_last_rank_asks_which_piece_to_promote_to(page: Page, dev_server: DevServer) -> None:
    frame = open_new_game(page, dev_server, fen="8/4P3/8/8/8/8/k7/4K3 w - - 0 1")
    square(frame, "e7").click()
    square(frame, "e8").click()
    picker = frame.locator('[data-testid="promotion-picker"]')
    expect(picker).to_be_visible()
    picker.locator('[data-promotion="n"]').click()
    expect(chess(frame)).to_have_attribute("data-ply", "1")
    expect(square(frame, "e8")).to_have_attribute("data-piece", "wN")


def test_flipping_the_board_puts_black_at_the_bottom(page: Page, dev_server: DevServer) -> None:
    frame = open_new_game(page, dev_server)
    first = frame.locator("[data-square]").first
    expect(first).to_have_attribute("data-square", "a8")
    frame.locator('[data-testid="chess-flip"]').click()
    expect(chess(frame)).to_have_attribute("data-orientation", "black")
    expect(first).to_have_attribute("data-square", "h1")
