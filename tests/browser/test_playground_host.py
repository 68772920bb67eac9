"""The playground as a host: its bridges, theme, size, messages, widget state, sandbox, and the activity panel.
(Which host it plays, and the identity each sends: test_playground_hosts.py.)"""

from __future__ import annotations

import re

import pytest
from browser_support import DevServer, chess, click_move, open_new_game, widget
from playwright.sync_api import Page, Route, expect

# Every way a widget can find its host: the MCP Apps bridge alone (the default host), ChatGPT with both, and
# ChatGPT with window.openai alone.
BRIDGES = [{"host": "mcp-apps"}, {"host": "chatgpt"}, {"host": "chatgpt", "bridge": "openai"}]


def bridge_id(host: dict[str, str]) -> str:
    return "+".join(host.values())


HASH = r"'sha256-[A-Za-z0-9+/]+=*'"


def test_the_widget_runs_in_a_sandboxed_frame_under_the_csp_of_its_template(page: Page, dev_server: DevServer) -> None:
    page.goto(dev_server.playground("display_demo", {"message": "csp"}))
    iframe = page.locator('[data-testid="widget-frame"]')
    expect(widget(page).locator('[data-widget="text"]')).to_have_text("csp")
    assert iframe.get_attribute("sandbox") == "allow-scripts allow-forms"  # no allow-same-origin
    csp = iframe.get_attribute("data-csp") or ""
    # The template's origin, and one inline script by its hash: the playground's CSP violation listener.
    assert re.search(rf"script-src {re.escape(dev_server.base)} {HASH};", csp)
    assert f"connect-src {dev_server.base};" in csp
    assert "default-src 'none'" in csp
    assert "*" not in csp


def test_as_chatgpt_the_frame_also_allows_exactly_the_window_openai_script_by_its_hash(
    page: Page, dev_server: DevServer
) -> None:
    page.goto(dev_server.playground("display_demo", {"message": "csp"}, host="chatgpt"))
    expect(widget(page).locator('[data-widget="text"]')).to_have_text("csp")
    csp = page.locator('[data-testid="widget-frame"]').get_attribute("data-csp") or ""
    assert re.search(rf"script-src {re.escape(dev_server.base)} {HASH} {HASH};", csp)


@pytest.mark.parametrize("host", BRIDGES, ids=bridge_id)
def test_the_theme_toggle_reaches_the_widget_over_each_bridge(
    page: Page, dev_server: DevServer, host: dict[str, str]
) -> None:
    page.goto(dev_server.playground("display_demo", {"message": "theme"}, **host))
    root = widget(page).locator("html")
    expect(widget(page).locator('[data-widget="text"]')).to_have_text("theme")
    expect(root).to_have_attribute("data-theme", "light")
    page.locator('[data-testid="theme-toggle"]').click()
    expect(root).to_have_attribute("data-theme", "dark")


def test_with_only_window_openai_the_board_renders_and_moves_through_call_tool(
    page: Page, dev_server: DevServer
) -> None:
    page.goto(dev_server.playground("chess_new_game", {}, host="chatgpt", bridge="openai"))
    frame = widget(page)
    expect(chess(frame)).to_have_attribute("data-ply", "0")
    expect(frame.locator("html")).to_have_attribute("data-bridge", "openai")
    click_move(frame, "e2", "e4", ply_after=1)


@pytest.mark.parametrize("host", [BRIDGES[0], BRIDGES[2]], ids=bridge_id)
def test_a_message_from_the_widget_appears_as_a_chat_bubble(
    page: Page, dev_server: DevServer, host: dict[str, str]
) -> None:
    page.goto(dev_server.playground("chess_new_game", {}, **host))
    frame = widget(page)
    game_id = chess(frame).get_attribute("data-game-id")
    frame.locator('[data-testid="chess-ask"]').click()
    expect(page.locator('[data-testid="chat-bubble"]')).to_contain_text(f"chess game {game_id}")


def test_the_frame_takes_the_height_the_widget_reports(page: Page, dev_server: DevServer) -> None:
    open_new_game(page, dev_server)
    iframe = page.locator('[data-testid="widget-frame"]')
    expect(iframe).to_have_attribute("style", re.compile(r"height: (\d{3,4})px"))
    height = iframe.evaluate("frame => frame.getBoundingClientRect().height")
    content = widget(page).locator(".wm-chess").evaluate("node => node.getBoundingClientRect().bottom")
    assert height >= content > 400


def test_widget_state_keeps_a_flipped_board_flipped_when_the_game_is_shown_again(
    page: Page, dev_server: DevServer
) -> None:
    # widgetState is ChatGPT's (window.openai); MCP Apps has none, so a new frame there starts unflipped.
    page.goto(dev_server.playground("chess_new_game", {}, host="chatgpt"))
    frame = widget(page)
    expect(chess(frame)).to_have_attribute("data-ply", "0")
    game_id = chess(frame).get_attribute("data-game-id")
    frame.locator('[data-testid="chess-flip"]').click()
    expect(chess(frame)).to_have_attribute("data-orientation", "black")
    # The user (or model) calls the tool again in the same conversation: a new frame for the same widget session.
    page.locator('[data-testid="tool-select"]').select_option("chess_move")
    page.locator('[data-testid="tool-args"]').fill(f'{{"gameId": "{game_id}", "move": "e4"}}')
    page.locator('[data-testid="call-tool"]').click()
    expect(chess(frame)).to_have_attribute("data-ply", "1")
    expect(chess(frame)).to_have_attribute("data-orientation", "black")


def test_the_activity_panel_shows_the_typed_events_of_each_tool_call(page: Page, dev_server: DevServer) -> None:
    page.goto(f"{dev_server.base}/playground")
    expect(page.locator('[data-testid="activity"]')).to_have_attribute("data-connected", "true")
    page.locator('[data-testid="tool-select"]').select_option("display_demo")
    page.locator('[data-testid="tool-args"]').fill('{"message": "<b>bold</b> claim"}')
    page.locator('[data-testid="call-tool"]').click()
    events = page.locator("[data-event-type]")
    expect(events).to_have_count(5)
    types = [events.nth(i).get_attribute("data-event-type") for i in range(5)]
    assert types == ["status", "tool_start", "tool_end", "status", "done"]
    expect(page.locator('[data-event-type="tool_end"] [data-testid="event-preview"]')).to_contain_text(
        "<b>bold</b> claim"
    )


def test_the_activity_panel_connects_again_after_the_server_answered_its_event_stream_with_an_error(
    page: Page, dev_server: DevServer
) -> None:
    # What `make dev` does while an app fails to load: 503 to everything, /events included. The browser gives up on
    # such a stream, so the playground must open it again itself, or it never hears that the app is back.
    refused: list[str] = []

    def refuse_twice(route: Route) -> None:
        if len(refused) < 2:
            refused.append(route.request.url)
            route.fulfill(status=503, content_type="application/json", body='{"error": "the app failed to load"}')
        else:
            route.continue_()

    page.route("**/events", refuse_twice)
    page.goto(f"{dev_server.base}/playground")
    expect(page.locator('[data-testid="activity"]')).to_have_attribute("data-connected", "true")
    assert len(refused) == 2
    page.locator('[data-testid="tool-select"]').select_option("display_demo")
    page.locator('[data-testid="call-tool"]').click()
    expect(page.locator('[data-event-type="done"]')).to_have_count(1)  # and the stream that got through carries events
