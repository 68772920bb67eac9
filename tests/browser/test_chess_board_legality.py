"""The board knows the legal moves (`_meta.legalMoves`): only legal squares are highlighted and take a dropped
piece, an illegal move is refused on the board with no call to the server, and the server, still the authority,
has its refusal shown when the board's hints let a move through."""

from __future__ import annotations

import re

from browser_support import DevServer, ToolCalls, chess, open_new_game, square, widget
from playwright.sync_api import Locator, Page, expect


def centre(node: Locator) -> tuple[float, float]:
    box = node.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_while_a_piece_is_dragged_only_its_legal_squares_light_up_and_an_illegal_drop_sends_nothing(
    page: Page, dev_server: DevServer
) -> None:
    frame = open_new_game(page, dev_server)
    calls = ToolCalls(page)
    # Raw mouse moves act at page coordinates, so the squares must be on screen, whatever sits above the frame.
    square(frame, "g1").scroll_into_view_if_needed()
    page.mouse.move(*centre(square(frame, "g1")))
    page.mouse.down()
    page.mouse.move(*centre(square(frame, "g3")), steps=4)
    expect(frame.locator(".sq.target")).to_have_count(2)  # Nf3 and Nh3, highlighted from the start of the drag
    expect(frame.locator(".sq.drop")).to_have_count(0)  # g3 is no place for the knight
    page.mouse.move(*centre(square(frame, "f3")), steps=4)
    expect(frame.locator(".sq.drop")).to_have_attribute("data-square", "f3")
    page.mouse.move(*centre(square(frame, "g3")), steps=4)
    expect(frame.locator(".sq.drop")).to_have_count(0)
    page.mouse.up()  # dropped on g3: refused here

    message = frame.locator('[data-testid="chess-message"]')
    expect(message).to_have_attribute("data-code", "illegal_move")
    expect(message).to_have_text("The white knight on g1 cannot move to g3.")
    expect(square(frame, "g1")).to_have_attribute("data-piece", "wN")
    expect(chess(frame)).to_have_attribute("data-ply", "0")

    square(frame, "g1").drag_to(square(frame, "f3"))
    expect(chess(frame)).to_have_attribute("data-ply", "1")
    expect(message).to_have_count(0)
    # Calls from one page reach /mcp in order, so the refused drop, made first, would be here before this one.
    sent = [(c["name"], c["arguments"]["from"], c["arguments"]["to"]) for c in calls.sent]
    assert sent == [("chess_move", "g1", "f3")]


def test_clicking_an_illegal_square_refuses_the_move_on_the_board_without_asking_the_server(
    page: Page, dev_server: DevServer
) -> None:
    frame = open_new_game(page, dev_server)
    calls = ToolCalls(page)
    square(frame, "e2").click()
    expect(frame.locator(".sq.target")).to_have_count(2)
    square(frame, "e5").click()
    message = frame.locator('[data-testid="chess-message"]')
    expect(message).to_have_attribute("data-code", "illegal_move")
    expect(message).to_have_text("The white pawn on e2 cannot move to e5.")
    expect(frame.locator(".sq.selected, .sq.target")).to_have_count(0)
    expect(chess(frame)).to_have_attribute("data-ply", "0")
    expect(square(frame, "e2")).to_have_attribute("data-piece", "wP")
    square(frame, "e2").click()  # picking a piece up again clears the message
    expect(message).to_have_count(0)
    square(frame, "e4").click()
    expect(chess(frame)).to_have_attribute("data-ply", "1")
    assert calls.names() == ["chess_move"]


def test_when_the_boards_hints_let_an_illegal_move_through_the_servers_refusal_is_shown(
    page: Page, dev_server: DevServer
) -> None:
    # A board whose hints are wrong (here: e2e5 added to a real new game's legal moves) sends the move, and the
    # server refuses it: the board shows the server's reason and keeps the position.
    result = dev_server.call_tool("chess_new_game", {})
    result["_meta"]["legalMoves"].append("e2e5")
    page.goto(dev_server.preview("chess-board", result))
    frame = widget(page)
    expect(chess(frame)).to_have_attribute("data-ply", "0")
    calls = ToolCalls(page)
    square(frame, "e2").click()
    expect(square(frame, "e5")).to_have_class(re.compile(r"\btarget\b"))
    square(frame, "e5").click()
    message = frame.locator('[data-testid="chess-message"]')
    expect(message).to_have_attribute("data-code", "illegal_move")
    expect(message).to_have_text("e2e5 is not a legal move for white in this position.")
    expect(chess(frame)).to_have_attribute("data-ply", "0")
    expect(square(frame, "e2")).to_have_attribute("data-piece", "wP")
    assert calls.names() == ["chess_move"]
    square(frame, "d2").click()
    square(frame, "d4").click()  # and play goes on
    expect(chess(frame)).to_have_attribute("data-ply", "1")
