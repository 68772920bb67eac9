"""Our widgets in a host built only on the official host side of @modelcontextprotocol/ext-apps (`AppBridge`), as
Claude, VS Code and the ext-apps reference host run them: the host calls the tool over HTTP from its own origin,
renders the template through a sandbox proxy on a second origin under the resource's CSP, and forwards the view's
requests unchanged, so nothing anywhere carries a user identity. Every flow runs in both protocol eras, and every
test ends with no uncaught error in any frame and no CSP violation (the `page` fixture watches the host page and
the proxy; the proxy itself watches the view frame it writes)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import chess_keyboard as keyboard
import httpx
import pytest
from browser_support import ToolCalls, assert_board_fits_a_phone, chess, phone_page, square
from ext_apps_host_support import (
    ERAS,
    ExtAppsHost,
    assert_view_ran_clean,
    ext_apps_host,
    host_record,
    open_in_host,
    proxy_frame,
    view_frame,
    view_report,
    wait_for_messages,
)
from playwright.sync_api import Browser, FrameLocator, Page, expect

SMALL_FORM = {
    "type": "object",
    "required": ["name", "guests"],
    "properties": {
        "name": {"type": "string", "title": "Name"},
        "guests": {"type": "integer", "title": "Guests", "minimum": 1},
    },
}


@pytest.fixture(scope="module")
def host() -> Iterator[ExtAppsHost]:
    with ext_apps_host("ext-apps-host-state") as running:
        yield running


def status(view: FrameLocator) -> str:
    return view.locator('[data-testid="chess-status"]').inner_text()


def play(view: FrameLocator, origin: str, target: str, ply_after: int) -> None:
    view.locator(f'[data-square="{origin}"]').click()
    view.locator(f'[data-square="{target}"]').click()
    expect(view.locator(".wm-chess")).to_have_attribute("data-ply", str(ply_after), timeout=15_000)


@pytest.mark.parametrize("era", ERAS)
def test_a_chess_game_against_the_engine_is_played_by_clicking_with_no_identity(
    page: Page, host: ExtAppsHost, era: str
) -> None:
    view = open_in_host(page, host, "chess_new_game", {"opponent": "engine"}, era)
    board = view.locator(".wm-chess")
    expect(board).to_have_attribute("data-ply", "0")
    expect(view.locator('[data-testid="chess-status"]')).to_have_text("White to move")

    play(view, "e2", "e4", ply_after=2)  # our move and the engine's reply, through AppBridge's tools/call
    expect(view.locator('[data-square="e4"]')).to_have_attribute("data-piece", "wP")
    expect(view.locator(".sq.last[data-piece^='b']")).to_have_count(1)  # the engine's piece, on its new square
    expect(view.locator('[data-testid="chess-status"]')).to_have_text(re.compile(r"^White to move"))

    play(view, "g1", "f3", ply_after=4)  # legal whatever the engine answered to 1.e4
    expect(view.locator('[data-square="f3"]')).to_have_attribute("data-piece", "wN")
    expect(view.locator('[data-square="g1"]')).not_to_have_attribute("data-piece", re.compile(".*"))
    expect(view.locator(".sq.last[data-piece^='b']")).to_have_count(1)
    expect(view.locator('[data-testid="chess-status"]')).to_have_text(re.compile(r"^White to move"))
    expect(view.locator('[data-testid="move-list"] .san')).to_have_count(4)

    # The game the host started without identity is the one another identity-less caller reaches by its id.
    game_id = board.get_attribute("data-game-id")
    assert game_id
    shown = host.call_tool(era, "chess_show_game", {"gameId": game_id})
    assert (shown["gameId"], shown["ply"], shown["status"]) == (game_id, 4, "active")
    assert shown["lastMove"]["san"] == view.locator('[data-testid="move-list"] .san').nth(3).inner_text()
    assert_view_ran_clean(page)


@pytest.mark.parametrize("era", ERAS)
def test_a_chess_game_is_played_to_checkmate_with_the_keyboard_alone(page: Page, host: ExtAppsHost, era: str) -> None:
    view = open_in_host(page, host, "chess_new_game", {}, era)
    expect(view.locator(".wm-chess")).to_have_attribute("data-ply", "0")
    frame = view_frame(page)
    keyboard.tab_to_board(page, frame)  # from the host page, through the sandbox proxy, into the view
    for ply, (origin, target) in enumerate([("f2", "f3"), ("e7", "e5"), ("g2", "g4"), ("d8", "h4")], start=1):
        keyboard.play(page, frame, view, origin, target, ply_after=ply)
    expect(view.locator('[data-testid="chess-status"]')).to_have_text("Checkmate — Black wins")
    expect(view.locator('[data-testid="chess-announcer"]')).to_have_text(
        "Black played queen h4, checkmate. Checkmate — Black wins."
    )
    game_id = view.locator(".wm-chess").get_attribute("data-game-id")
    assert game_id
    shown = host.call_tool(era, "chess_show_game", {"gameId": game_id})
    assert (shown["status"], shown["winner"], shown["ply"]) == ("checkmate", "black", 4)
    assert_view_ran_clean(page)


def test_fullscreen_is_asked_of_the_host_through_appbridge_and_the_same_button_returns_inline(
    page: Page, host: ExtAppsHost
) -> None:
    view = open_in_host(page, host, "chess_new_game", {}, "legacy")
    board = view.locator(".wm-chess")
    button = view.locator('[data-testid="chess-fullscreen"]')
    button.click()
    expect(board).to_have_attribute("data-display-mode", "fullscreen")
    assert page.locator("#view").bounding_box() == {"x": 0, "y": 0, "width": 1280, "height": 1000}
    moves = view.locator('[data-testid="move-list"]').bounding_box()
    squares = view.locator(".wm-board").bounding_box()
    assert moves is not None
    assert squares is not None
    assert moves["x"] >= squares["x"] + squares["width"]  # side by side
    button.click()
    expect(board).to_have_attribute("data-display-mode", "inline")
    record = host_record(page)
    assert (record["displayModeRequests"], record["displayMode"]) == (["fullscreen", "inline"], "inline")
    assert record["appCapabilities"] == {"availableDisplayModes": ["inline", "fullscreen"]}
    view.locator('[data-square="e2"]').click()
    view.locator('[data-square="e4"]').click()
    expect(board).to_have_attribute("data-ply", "1")
    assert_view_ran_clean(page)


def test_a_host_that_offers_no_fullscreen_gets_no_fullscreen_button(page: Page, host: ExtAppsHost) -> None:
    view = open_in_host(page, host, "chess_new_game", {}, "legacy", displayModes="inline")
    expect(view.locator(".wm-chess")).to_have_attribute("data-ply", "0")
    expect(view.locator('[data-testid="chess-flip"]')).to_be_visible()
    expect(view.locator('[data-testid="chess-fullscreen"]')).to_have_count(0)
    assert host_record(page)["displayModeRequests"] == []
    assert_view_ran_clean(page)


def test_an_illegal_move_is_refused_on_the_board_and_never_reaches_the_server(page: Page, host: ExtAppsHost) -> None:
    view = open_in_host(page, host, "chess_new_game", {}, "legacy")
    expect(chess(view)).to_have_attribute("data-ply", "0")
    calls = ToolCalls(page)  # every tools/call the host page sends to the server, the view's included
    square(view, "e2").click()
    expect(view.locator(".sq.target")).to_have_count(2)
    square(view, "e5").click()
    message = view.locator('[data-testid="chess-message"]')
    expect(message).to_have_attribute("data-code", "illegal_move")
    expect(message).to_have_text("The white pawn on e2 cannot move to e5.")
    expect(chess(view)).to_have_attribute("data-ply", "0")
    expect(square(view, "e2")).to_have_attribute("data-piece", "wP")
    play(view, "e2", "e4", ply_after=1)
    # Calls from one page reach the server in order, so the refused move, made first, would be here before this one.
    assert [(c["name"], c["arguments"]["from"], c["arguments"]["to"]) for c in calls.sent] == [
        ("chess_move", "e2", "e4")
    ]
    assert_view_ran_clean(page)


def test_captured_pieces_are_counted_by_kind_with_the_material_lead(page: Page, host: ExtAppsHost) -> None:
    view = open_in_host(page, host, "chess_new_game", {}, "legacy")
    white = view.locator('[data-testid="captured-white"]')
    black = view.locator('[data-testid="captured-black"]')
    expect(white).to_have_text("White has captured: nothing")
    for ply, (origin, target) in enumerate([("e2", "e4"), ("d7", "d5"), ("e4", "d5"), ("d8", "d5")], start=1):
        play(view, origin, target, ply_after=ply)
    expect(white).to_have_text("White has captured: 1 pawn")
    expect(black).to_have_text("Black has captured: 1 pawn")
    play(view, "b1", "c3", ply_after=5)
    play(view, "d5", "a2", ply_after=6)
    expect(black).to_have_text("Black has captured: 2 pawns (+1), 1 point ahead")
    expect(black.locator(".lead")).to_have_attribute("aria-hidden", "true")  # read as "1 point ahead" instead
    expect(white).to_have_text("White has captured: 1 pawn")
    assert_view_ran_clean(page)


def test_at_320_px_the_board_fits_and_a_tap_plays_a_move(browser: Browser, host: ExtAppsHost) -> None:
    with phone_page(browser, 320) as phone:
        view = open_in_host(phone, host, "chess_new_game", {}, "legacy")
        expect(chess(view)).to_have_attribute("data-ply", "0")
        assert phone.evaluate("() => document.documentElement.scrollWidth") <= 320
        assert_board_fits_a_phone(view_frame(phone), 320)
        square(view, "e2").tap()
        expect(view.locator(".sq.target")).to_have_count(2)
        square(view, "e4").tap()
        expect(chess(view)).to_have_attribute("data-ply", "1")
        expect(square(view, "e4")).to_have_attribute("data-piece", "wP")
        assert_view_ran_clean(phone)


@pytest.mark.parametrize("era", ERAS)
def test_a_form_is_filled_and_sent_and_its_answer_reaches_the_host_and_the_server_with_no_identity(
    page: Page, host: ExtAppsHost, era: str
) -> None:
    question = {"question": SMALL_FORM, "title": "Dinner booking", "description": "Who is coming?"}
    view = open_in_host(page, host, "ask_question", question, era)
    form = view.locator(".wm-form")
    expect(form).to_have_attribute("data-state", "ready")
    expect(view.locator('[data-testid="form-title"]')).to_have_text("Dinner booking")
    form_id = form.get_attribute("data-form-id")
    assert form_id
    assert host.call_tool(era, "get_form_response", {"formId": form_id})["type"] == "dgui_pending"

    view.locator("#root_name").fill("Ada Lovelace")
    view.locator("#root_guests").fill("3")
    view.locator("button[type=submit]").click()

    expect(view.locator('[data-testid="form-sent"]')).to_be_visible()
    expect(form).to_have_attribute("data-state", "sent")
    [message] = wait_for_messages(page, 1)  # ui/message, received by AppBridge's onmessage
    assert message["role"] == "user"
    text = " ".join(block["text"] for block in message["content"] if block["type"] == "text")
    assert form_id in text
    assert "Ada Lovelace" in text
    assert "3" in text

    answer = host.call_tool(era, "get_form_response", {"formId": form_id})
    assert answer["type"] == "dgui_response"
    assert answer["formId"] == form_id
    assert answer["data"] == {"name": "Ada Lovelace", "guests": 3}
    assert_view_ran_clean(page)


@pytest.mark.parametrize("era", ERAS)
def test_display_demo_renders_its_widgets(page: Page, host: ExtAppsHost, era: str) -> None:
    view = open_in_host(page, host, "display_demo", {"message": "three little words"}, era)
    boxes = view.locator("[data-widget]")
    expect(boxes).to_have_count(2)
    expect(boxes.nth(0)).to_have_attribute("data-widget", "text")
    expect(boxes.nth(0)).to_have_text("three little words")
    expect(boxes.nth(1)).to_have_attribute("data-widget", "table")
    expect(boxes.nth(1).locator("tr").nth(1)).to_have_text("words3")
    expect(view.locator("[data-fallback]")).to_have_count(0)
    assert host_record(page)["toolResult"]["structuredContent"] == {
        "message": "three little words",
        "length": 18,
        "words": 3,
    }
    assert host_record(page)["appCapabilities"] == {}  # lays itself out inline only, so declares no display modes
    assert_view_ran_clean(page)


def test_the_view_runs_under_the_resources_csp_and_a_violation_in_it_is_seen(
    browser: Browser, host: ExtAppsHost
) -> None:
    """The watch is real: the header the proxy is served with is built from `_meta.ui.csp` (nothing by default, no
    'unsafe-eval', no 'unsafe-inline'), the view frame inherits it, and an eval there is refused and recorded.
    (Playwright's own evaluate is exempt from CSP, so the eval is a string handed to setTimeout.) Its own page,
    since the violation it provokes is one the `page` fixture would fail on."""
    context = browser.new_context()
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        view = open_in_host(page, host, "display_demo", {"message": "csp"}, "legacy")
        expect(view.locator("[data-widget]")).to_have_count(2)
        proxy = proxy_frame(page)
        policy = httpx.get(proxy.url, timeout=10).headers["content-security-policy"]  # as the proxy was served
        widgets_origin = host.mcp_url.removesuffix("/mcp")
        assert policy.startswith("default-src 'none'; ")
        assert f"script-src 'self' {widgets_origin};" in policy
        assert "unsafe-eval" not in policy
        assert "unsafe-inline" not in policy
        assert_view_ran_clean(page)

        # A string evaluated as code in the view (an eval: what zod's probe did) is refused, and reported.
        [inner] = [f for f in page.frames if f.parent_frame == proxy]
        inner.evaluate("() => setTimeout('window.evaluatedFromString = true', 0)")
        proxy.wait_for_function("() => window.viewReport.violations.length > 0")
        violations = view_report(page)["violations"]
        assert [(v["frame"], v["directive"], v["blocked"]) for v in violations] == [("view", "script-src", "eval")]
        assert inner.evaluate("() => window.evaluatedFromString") is None
        assert errors == []
    finally:
        context.close()
