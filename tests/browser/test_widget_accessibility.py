"""Every widget, in the states a user meets, checked by axe-core in the host's light and dark themes: no serious or
critical violation (contrast included)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from axe_support import assert_accessible
from browser_support import DevServer, chess, click_in_widget, settled, square, widget
from form_keys import keep_key, keyed
from playwright.sync_api import Page, expect
from seed_forms import FLIGHT as FLIGHT_SCHEMA
from seed_forms import FLIGHT_UI

THEMES = ["light", "dark"]
FLIGHT = {"question": FLIGHT_SCHEMA, "uiSchema": FLIGHT_UI, "title": "Book a Flight to Japan"}
EVERY_FIELD = {
    "question": {
        "type": "object",
        "title": "Preferences",
        "description": "Tell us how you like to travel.",
        "required": ["seat", "name"],
        "properties": {
            "name": {"type": "string", "title": "Name", "description": "As on the passport"},
            "notes": {"type": "string", "title": "Notes"},
            "seat": {"type": "string", "title": "Seat", "enum": ["window", "aisle"]},
            "cabin": {"type": "string", "title": "Cabin", "enum": ["economy", "business"]},
            "meals": {
                "type": "array",
                "title": "Meals",
                "items": {"type": "string", "enum": ["vegan", "halal"]},
                "uniqueItems": True,
            },
            "pets": {"type": "boolean", "title": "Travelling with pets"},
            "adults": {"type": "integer", "title": "Adults", "minimum": 1},
            "address": {
                "type": "object",
                "title": "Address",
                "properties": {"city": {"type": "string", "title": "City"}},
            },
        },
    },
    "uiSchema": {
        "notes": {"ui:widget": "textarea"},
        "seat": {"ui:widget": "radio"},
        "cabin": {"ui:widget": "select"},
        "meals": {"ui:widget": "checkboxes"},
    },
}


def in_theme(page: Page, url: str, theme: str) -> None:
    page.goto(f"{url}&theme={theme}")
    expect(widget(page).locator("html")).to_have_attribute("data-theme", theme)


def chess_game(page: Page, server: DevServer, theme: str, **args: object) -> None:
    in_theme(page, server.playground("chess_new_game", dict(args)), theme)
    expect(chess(widget(page))).to_have_attribute("data-ply", "0")
    settled(page)


def check(page: Page, what: str) -> None:
    assert_accessible(page, what)


def chess_states(page: Page, server: DevServer, theme: str) -> None:
    chess_game(page, server, theme, opponent="engine")
    frame = widget(page)
    check(page, "a new chess game")
    click_in_widget(page, square(frame, "g1"))
    expect(frame.locator(".sq.target")).to_have_count(2)
    check(page, "the board with a piece picked up")
    click_in_widget(page, square(frame, "f3"))
    expect(chess(frame)).to_have_attribute("data-ply", "2")
    check(page, "the board after a move and the engine's reply")
    frame.locator('[data-testid="chess-flip"]').click()
    expect(chess(frame)).to_have_attribute("data-orientation", "black")
    check(page, "the flipped board")


def chess_check_and_promotion(page: Page, server: DevServer, theme: str) -> None:
    chess_game(page, server, theme, fen="4k3/1P6/8/8/8/8/8/4K2R b - - 0 1")
    frame = widget(page)
    click_in_widget(page, square(frame, "e8"))
    click_in_widget(page, square(frame, "d7"))
    expect(chess(frame)).to_have_attribute("data-ply", "1")
    click_in_widget(page, square(frame, "b7"))
    click_in_widget(page, square(frame, "b8"))
    expect(frame.locator('[data-testid="promotion-picker"]')).to_be_visible()
    check(page, "the promotion picker")
    click_in_widget(page, frame.locator('[data-promotion="q"]'))
    expect(chess(frame)).to_have_attribute("data-ply", "2")
    click_in_widget(page, square(frame, "d7"))
    click_in_widget(page, square(frame, "e6"))
    expect(chess(frame)).to_have_attribute("data-ply", "3")
    click_in_widget(page, square(frame, "h1"))
    click_in_widget(page, square(frame, "h6"))
    expect(chess(frame)).to_have_attribute("data-ply", "4")
    expect(frame.locator(".sq.check")).to_have_count(1)
    check(page, "a king in check")


def chess_mate_and_messages(page: Page, server: DevServer, theme: str) -> None:
    chess_game(page, server, theme, fen="7k/8/6K1/8/8/8/8/R7 w - - 0 1")
    frame = widget(page)
    click_in_widget(page, square(frame, "a1"))
    click_in_widget(page, square(frame, "b2"))  # not a rook move: refused
    expect(frame.locator('[data-testid="chess-message"]')).to_have_attribute("data-code", "illegal_move")
    check(page, "a refused move's message")
    click_in_widget(page, square(frame, "a1"))
    click_in_widget(page, square(frame, "a8"))
    expect(chess(frame)).to_have_attribute("data-status", "checkmate")
    check(page, "a finished game")


def chess_captures(page: Page) -> None:
    """1.e4 d5 2.exd5: a capture for each material line to count, and a lead to show."""
    frame = widget(page)
    for ply, (origin, target) in enumerate([("e2", "e4"), ("d7", "d5"), ("e4", "d5")], start=1):
        click_in_widget(page, square(frame, origin))
        click_in_widget(page, square(frame, target))
        expect(chess(frame)).to_have_attribute("data-ply", str(ply))
    expect(frame.locator('[data-testid="captured-white"] .lead')).to_have_text(" (+1)")


def chess_fullscreen(page: Page, server: DevServer, theme: str) -> None:
    chess_game(page, server, theme)
    chess_captures(page)
    frame = widget(page)
    frame.locator('[data-testid="chess-fullscreen"]').click()
    expect(chess(frame)).to_have_attribute("data-display-mode", "fullscreen")
    check(page, "the fullscreen board beside its move list")
    click_in_widget(page, square(frame, "d8"))
    expect(frame.locator(".sq.target")).not_to_have_count(0)
    check(page, "the fullscreen board with a piece picked up")


def chess_phone(page: Page, server: DevServer, theme: str) -> None:
    page.set_viewport_size({"width": 320, "height": 740})
    chess_game(page, server, theme)
    check(page, "a new game 320 px wide")
    chess_captures(page)
    check(page, "a game with captures 320 px wide")


def chess_lists(page: Page, server: DevServer, theme: str) -> None:
    server.call_tool("chess_new_game", {}, {"openai/subject": "playground-user"})
    in_theme(page, server.playground("chess_list_games", {}, host="chatgpt"), theme)
    expect(widget(page).locator('[data-widget="table"] tr')).not_to_have_count(0)
    check(page, "chess_list_games' table")
    games = {"games": [{"gameId": "g1", "status": "active", "ply": 3, "opponent": "engine"}]}
    in_theme(page, server.preview("chess-board", {"structuredContent": games}), theme)
    expect(widget(page).locator('[data-testid="chess-games"] button')).to_have_count(1)
    check(page, "a list of games on the board widget")


def form_states(page: Page, server: DevServer, theme: str) -> None:
    in_theme(page, server.playground("ask_question", FLIGHT), theme)
    frame = widget(page)
    expect(frame.locator(".wm-form")).to_have_attribute("data-state", "ready")
    settled(page)
    check(page, "the flight form")
    click_in_widget(page, frame.locator("button[type=submit]"))
    expect(frame.locator(".error-detail").first).to_contain_text("This field is required.")
    check(page, "the flight form with a missing field")
    frame.locator("#root_departureDate").fill("2025-12-25")
    click_in_widget(page, frame.locator("button[type=submit]"))
    expect(frame.locator('[data-testid="form-sent"]')).to_be_visible()
    check(page, "the sent form")


def form_every_field(page: Page, server: DevServer, theme: str) -> None:
    in_theme(page, server.playground("ask_question", EVERY_FIELD), theme)
    frame = widget(page)
    expect(frame.locator(".wm-form")).to_have_attribute("data-state", "ready")
    settled(page)
    check(page, "a form with every kind of field")
    click_in_widget(page, frame.locator("button[type=submit]"))
    expect(frame.locator(".error-detail").first).to_be_visible()
    check(page, "a form with every kind of field and its errors")


def form_server_error(page: Page, server: DevServer, theme: str) -> None:
    asked = keep_key(server.call_tool("ask_question", FLIGHT))
    form_id = asked["structuredContent"]["formId"]
    answer = {"destinationCity": "Osaka", "departureDate": "2025-11-01"}
    assert server.call_tool("submit_form", keyed({"formId": form_id, "data": answer}))["isError"] is False
    in_theme(page, server.preview("form", asked), theme)
    frame = widget(page)
    frame.locator("#root_departureDate").fill("2025-12-25")
    click_in_widget(page, frame.locator("button[type=submit]"))
    expect(frame.locator('[data-testid="form-message"]')).to_have_attribute("data-code", "already_answered")
    check(page, "a form the server refused")


def display_states(page: Page, server: DevServer, theme: str) -> None:
    in_theme(page, server.playground("display_demo", {"message": "three little words"}), theme)
    expect(widget(page).locator("[data-widget]")).to_have_count(2)
    check(page, "display_demo's text and table")


def display_chess(page: Page, server: DevServer, theme: str) -> None:
    game = server.call_tool("chess_new_game", {})["structuredContent"]["gameId"]
    for ply, move in enumerate(["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]):
        assert server.call_tool("chess_move", {"gameId": game, "move": move, "expectedPly": ply})["isError"] is False
    in_theme(page, server.playground("chess_show_game", {"gameId": game}), theme)
    expect(widget(page).locator('[data-widget="chess-board"] [data-square]')).to_have_count(64)
    check(page, "chess_show_game's board and move list")


def display_fallback_and_error(page: Page, server: DevServer, theme: str) -> None:
    result = {
        "content": [{"type": "text", "text": "Oslo: 3 °C"}],
        "_meta": {
            "error": {"code": "partial", "message": "Part of the answer failed."},
            "widgets": [{"type": "widget", "widget": "weather", "data": {}, "fallback": "Oslo: 3 °C"}],
        },
        "isError": True,
    }
    in_theme(page, server.preview("display", result), theme)
    expect(widget(page).locator("[data-fallback]")).to_have_count(1)
    check(page, "a display fallback and an error")


SCENARIOS: dict[str, Callable[[Page, DevServer, str], None]] = {
    "chess": chess_states,
    "chess-check-promotion": chess_check_and_promotion,
    "chess-mate-messages": chess_mate_and_messages,
    "chess-lists": chess_lists,
    "chess-fullscreen": chess_fullscreen,
    "chess-phone": chess_phone,
    "form": form_states,
    "form-every-field": form_every_field,
    "form-server-error": form_server_error,
    "display": display_states,
    "display-chess": display_chess,
    "display-fallback-error": display_fallback_and_error,
}


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_widget_has_no_serious_or_critical_accessibility_violation(
    page: Page, dev_server: DevServer, scenario: str, theme: str
) -> None:
    SCENARIOS[scenario](page, dev_server, theme)
