"""The widgets in a host that drops what third-party hosts were seen to drop (the playground's `bare=1`): the
`_meta` of the results of the widget's own tool calls (MCPJam's window.openai.callTool hands `_meta: null`) and
any way to post in the conversation (the mcp-use inspector declares no `message` and answers ui/message with
"Method not found"). Both bridges: the MCP Apps host, and ChatGPT's window.openai alone."""

from __future__ import annotations

import re

import pytest
from browser_support import CHATGPT, DevServer, ToolCalls, chess, click_in_widget, click_move, square, widget
from playwright.sync_api import Locator, Page, expect

HOSTS = [{"host": "mcp-apps", "bare": "1"}, {"host": "chatgpt", "bridge": "openai", "bare": "1"}]
CONTEXT_SOURCE = {"mcp-apps": "ui/update-model-context", "chatgpt": "widgetState"}


def host_id(host: dict[str, str]) -> str:
    return "+".join(v for k, v in host.items() if k != "bare")


def widget_errors(page: Page) -> Locator:
    """The playground's chat lines for the widget's own calls that failed."""
    return page.locator('[data-testid="chat-widget-result"][data-outcome="error"]')


@pytest.mark.parametrize("host", HOSTS, ids=host_id)
def test_without_meta_the_board_leaves_legality_to_the_server_and_plays_fools_mate_for_both_colours(
    page: Page, dev_server: DevServer, host: dict[str, str]
) -> None:
    page.goto(dev_server.playground("chess_new_game", {}, **host))
    frame = widget(page)
    expect(chess(frame)).to_have_attribute("data-ply", "0")
    expect(frame.locator('[data-testid="chess-ask"]')).to_have_count(0)  # the host takes no message
    calls = ToolCalls(page)
    click_move(frame, "f2", "f3", ply_after=1)

    # White's list of legal moves came with the first result; f3's came without one: no hints, nothing refused here.
    click_in_widget(page, square(frame, "e7"))
    expect(square(frame, "e7")).to_have_class(re.compile(r"\bselected\b"))
    expect(frame.locator(".sq.target")).to_have_count(0)
    click_in_widget(page, square(frame, "e4"))  # three squares: the server refuses it
    message = frame.locator('[data-testid="chess-message"]')
    # In the server's words (its code, in `_meta.error`, was dropped with the rest of `_meta`).
    expect(message).to_have_text("e7e4 is not a legal move for black in this position.")
    expect(chess(frame)).to_have_attribute("data-ply", "1")

    click_move(frame, "e7", "e5", ply_after=2)
    expect(message).to_have_count(0)
    click_move(frame, "g2", "g4", ply_after=3)
    click_move(frame, "d8", "h4", ply_after=4)
    expect(frame.locator('[data-testid="chess-status"]')).to_have_text("Checkmate — Black wins")
    expect(frame.locator('[data-testid="move-list"] .san')).to_have_text(["f3", "e5", "g4", "Qh4#"])
    sent = [(c["arguments"]["from"], c["arguments"]["to"]) for c in calls.sent if c["name"] == "chess_move"]
    assert sent == [("f2", "f3"), ("e7", "e4"), ("e7", "e5"), ("g2", "g4"), ("d8", "h4")]
    expect(widget_errors(page)).to_have_count(1)  # the refused e7-e4, and nothing else

    game_id = chess(frame).get_attribute("data-game-id")
    assert game_id
    caller = CHATGPT if host["host"] == "chatgpt" else None
    shown = dev_server.call_tool("chess_show_game", {"gameId": game_id}, caller)["structuredContent"]
    assert (shown["status"], shown["winner"], shown["ply"]) == ("checkmate", "black", 4)


@pytest.mark.parametrize("host", HOSTS, ids=host_id)
def test_a_host_that_takes_no_message_gets_a_sent_form_with_no_error_notice_and_the_model_context(
    page: Page, dev_server: DevServer, host: dict[str, str]
) -> None:
    schema = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "title": "Name"}}}
    page.goto(dev_server.playground("ask_question", {"question": schema, "title": "Guest"}, **host))
    frame = widget(page)
    form = frame.locator(".wm-form")
    expect(form).to_have_attribute("data-state", "ready")
    form_id = form.get_attribute("data-form-id")
    assert form_id
    frame.locator("#root_name").fill("Ada Lovelace")
    click_in_widget(page, frame.locator("button[type=submit]"))

    expect(frame.locator('[data-testid="form-sent"]')).to_contain_text("Thanks — sent")
    expect(form).to_have_attribute("data-state", "sent")
    expect(frame.locator('[data-testid="form-message"]')).to_have_count(0)
    expect(page.locator('[data-testid="chat-bubble"]')).to_have_count(0)  # nothing was posted in the conversation
    expect(widget_errors(page)).to_have_count(0)
    # The model still learns the answer, through what the host does take.
    context = page.locator(f'[data-testid="model-context"] [data-source="{CONTEXT_SOURCE[host["host"]]}"]')
    expect(context).to_contain_text("Ada Lovelace")

    caller = CHATGPT if host["host"] == "chatgpt" else None
    stored = dev_server.call_tool("get_form_response", {"formId": form_id}, caller)["structuredContent"]
    assert (stored["type"], stored["data"]) == ("dgui_response", {"name": "Ada Lovelace"})


def test_without_meta_a_conflict_still_brings_the_board_to_the_game_and_captures_are_counted_from_the_board(
    page: Page, dev_server: DevServer
) -> None:
    page.goto(dev_server.playground("chess_new_game", {}, **HOSTS[0]))
    frame = widget(page)
    expect(chess(frame)).to_have_attribute("data-ply", "0")
    game_id = chess(frame).get_attribute("data-game-id")
    assert game_id
    elsewhere = dev_server.call_tool("chess_move", {"gameId": game_id, "move": "e4", "expectedPly": 0})
    assert elsewhere["isError"] is False
    click_in_widget(page, square(frame, "d2"))
    click_in_widget(page, square(frame, "d4"))  # sent with expectedPly 0, but the game is at ply 1
    expect(frame.locator('[data-testid="chess-message"]')).to_contain_text("The game changed elsewhere")
    expect(chess(frame)).to_have_attribute("data-ply", "1")
    expect(square(frame, "e4")).to_have_attribute("data-piece", "wP")
    expect(frame.locator('[data-testid="move-list"] .san')).to_have_text(["e4"])
    click_move(frame, "d7", "d5", ply_after=2)  # black's move, with no legal-move list for this position either
    click_move(frame, "e4", "d5", ply_after=3)
    expect(frame.locator('[data-testid="move-list"] .san')).to_have_text(["e4", "d5", "exd5"])
    expect(frame.locator('[data-testid="captured-white"]')).to_contain_text("White has captured: 1 pawn (+1)")
