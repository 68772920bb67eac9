"""The model stays aware of what the user does in a widget: after each move on the board (with the engine's reply)
and each accepted form step, the widget updates the model's context through the host, as MCP Apps'
`ui/update-model-context` and as ChatGPT's widget state, and the playground's activity panel shows what the model
would now see. A flip changes nothing the model needs to know, so it sends no update."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from browser_support import CHATGPT, DevServer, chess, click_move, open_new_game, widget
from ext_apps_host_support import (
    ERAS,
    ExtAppsHost,
    assert_view_ran_clean,
    ext_apps_host,
    host_record,
    open_in_host,
)
from playwright.sync_api import FrameLocator, Locator, Page, expect
from seed_forms import FLIGHT, FLIGHT_UI, TRAVELLERS_STEP

MCP_APPS = "ui/update-model-context"
WIDGET_STATE = "widgetState"
MAX_CHESS_CONTEXT = 400  # characters: a game id, a FEN and a few words, never the move list or the legal moves


def context(page: Page, source: str) -> Locator:
    """What the playground shows the model sees through one dialect."""
    return page.locator(f'[data-testid="model-context"] [data-source="{source}"]')


def game_of(frame: FrameLocator, server: DevServer, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """The game on the board as the server has it now (its structuredContent)."""
    game_id = chess(frame).get_attribute("data-game-id")
    assert game_id
    shown = server.call_tool("chess_show_game", {"gameId": game_id}, meta)
    structured: dict[str, Any] = shown["structuredContent"]
    return structured


def expect_position(shown: Locator, game: dict[str, Any], updates: int) -> None:
    expect(shown).to_contain_text(game["fen"])
    expect(shown).to_contain_text(game["gameId"])
    expect(shown).to_have_attribute("data-updates", str(updates))


def test_in_an_mcp_apps_host_each_move_shows_the_new_position_as_the_model_context_and_a_flip_sends_nothing(
    page: Page, dev_server: DevServer
) -> None:
    frame = open_new_game(page, dev_server, opponent="engine")
    shown = context(page, MCP_APPS)
    expect(shown).to_be_hidden()  # the model made this game itself: nothing new to tell it yet
    expect(context(page, WIDGET_STATE)).to_be_hidden()  # no window.openai in this host

    click_move(frame, "e2", "e4", ply_after=2)
    game = game_of(frame, dev_server)
    expect_position(shown, game, updates=1)
    text = shown.inner_text()
    # The user's move and the engine's reply, then where the game stands.
    assert f"played e4 (white), {game['lastMove']['san']} (black); white to move. FEN {game['fen']}" in text
    assert len(text) <= MAX_CHESS_CONTEXT, text

    frame.locator('[data-testid="chess-flip"]').click()
    expect(chess(frame)).to_have_attribute("data-orientation", "black")
    click_move(frame, "g1", "f3", ply_after=4)
    game = game_of(frame, dev_server)
    # An update for the flip would have come before the move's: there was none.
    expect_position(shown, game, updates=2)
    assert f"played Nf3 (white), {game['lastMove']['san']} (black); white to move." in shown.inner_text()


@pytest.mark.parametrize("bridge", ["both", "openai"])
def test_in_chatgpt_the_widget_state_carries_the_position_after_each_move_and_keeps_the_flip(
    page: Page, dev_server: DevServer, bridge: str
) -> None:
    page.goto(dev_server.playground("chess_new_game", {"opponent": "engine"}, host="chatgpt", bridge=bridge))
    frame = widget(page)
    expect(chess(frame)).to_have_attribute("data-ply", "0")
    state = context(page, WIDGET_STATE)

    click_move(frame, "d2", "d4", ply_after=2)
    game = game_of(frame, dev_server, CHATGPT)
    expect_position(state, game, updates=1)
    saved = json.loads(state.inner_text())
    assert saved == {
        "modelContext": {
            "gameId": game["gameId"],
            "fen": game["fen"],
            "lastMove": game["lastMove"]["san"],
            "played": ["d4", game["lastMove"]["san"]],
            "turn": "white",
            "status": "active",
            "winner": None,
            "ply": 2,
        }
    }
    assert len(state.inner_text()) <= MAX_CHESS_CONTEXT
    if bridge == "both":  # ChatGPT takes MCP Apps' update too
        expect_position(context(page, MCP_APPS), game, updates=1)
    else:
        expect(context(page, MCP_APPS)).to_be_hidden()

    # The flip is the widget's own state: saved beside the model's facts, which it leaves as they were.
    frame.locator('[data-testid="chess-flip"]').click()
    expect(state).to_have_attribute("data-updates", "2")
    assert json.loads(state.inner_text()) == {**saved, "flipped": True}
    if bridge == "both":
        expect(context(page, MCP_APPS)).to_have_attribute("data-updates", "1")


def test_a_sent_form_shows_its_answers_as_the_model_context_after_each_step(page: Page, dev_server: DevServer) -> None:
    args = {"question": FLIGHT, "uiSchema": FLIGHT_UI, "title": "Trip", "metadata": {"next": TRAVELLERS_STEP}}
    page.goto(dev_server.playground("ask_question", args))
    frame = widget(page)
    expect(frame.locator(".wm-form")).to_have_attribute("data-state", "ready")
    form_id = frame.locator(".wm-form").get_attribute("data-form-id")
    shown = context(page, MCP_APPS)

    frame.locator("#root_departureDate").fill("2025-12-25")
    frame.locator("button[type=submit]").click()
    expect(frame.locator(".wm-form")).to_have_attribute("data-step", "1")
    expect(shown).to_have_attribute("data-updates", "1")
    expect(shown).to_have_text(
        f'Form {form_id} "Trip", answered in the widget: step 1 of 2 answered. '
        "Answers: Destination City: Tokyo; Departure Date: 2025-12-25"
    )

    frame.locator("#root_adults").fill("2")
    frame.locator("button[type=submit]").click()
    expect(frame.locator('[data-testid="form-sent"]')).to_be_visible()
    expect(shown).to_have_attribute("data-updates", "2")
    expect(shown).to_contain_text(f'Form {form_id} "Trip", answered in the widget: sent.')
    expect(shown).to_contain_text("Travellers — Adults: 2")


@pytest.fixture(scope="module")
def host() -> Iterator[ExtAppsHost]:
    with ext_apps_host("ext-apps-host-model-context") as running:
        yield running


def test_the_official_app_bridge_host_receives_the_position_after_a_move(page: Page, host: ExtAppsHost) -> None:
    era = ERAS[0]
    view = open_in_host(page, host, "chess_new_game", {"opponent": "engine"}, era)
    assert host_record(page)["modelContext"] == []
    view.locator('[data-square="e2"]').click()
    view.locator('[data-square="e4"]').click()
    page.wait_for_function("() => window.extAppsHost.modelContext.length >= 1", timeout=15_000)

    game_id = view.locator(".wm-chess").get_attribute("data-game-id")
    assert game_id
    game = host.call_tool(era, "chess_show_game", {"gameId": game_id})
    [update] = host_record(page)["modelContext"]
    assert update["structuredContent"]["fen"] == game["fen"]
    assert update["structuredContent"]["lastMove"] == game["lastMove"]["san"]
    [text] = update["content"]
    assert text["type"] == "text"
    assert game["fen"] in text["text"]
    assert game_id in text["text"]
    assert len(text["text"]) <= MAX_CHESS_CONTEXT

    # A flip changes nothing the model needs: the next update the host receives is the next move's.
    view.locator('[data-testid="chess-flip"]').click()
    expect(view.locator(".wm-chess")).to_have_attribute("data-orientation", "black")
    view.locator('[data-square="g1"]').click()
    view.locator('[data-square="f3"]').click()
    page.wait_for_function("() => window.extAppsHost.modelContext.length >= 2", timeout=15_000)
    game = host.call_tool(era, "chess_show_game", {"gameId": game_id})
    updates = host_record(page)["modelContext"]
    assert len(updates) == 2
    assert updates[1]["structuredContent"]["fen"] == game["fen"]
    assert updates[1]["structuredContent"]["played"] == ["Nf3", game["lastMove"]["san"]]


@pytest.mark.parametrize("era", ERAS)
def test_the_official_app_bridge_host_receives_a_forms_answers_after_each_step(
    page: Page, host: ExtAppsHost, era: str
) -> None:
    args = {"question": FLIGHT, "uiSchema": FLIGHT_UI, "title": "Trip", "metadata": {"next": TRAVELLERS_STEP}}
    view = open_in_host(page, host, "ask_question", args, era)
    form = view.locator(".wm-form")
    expect(form).to_have_attribute("data-state", "ready")
    form_id = form.get_attribute("data-form-id")
    assert host_record(page)["modelContext"] == []

    view.locator("#root_departureDate").fill("2025-12-25")
    view.locator("button[type=submit]").click()
    expect(form).to_have_attribute("data-step", "1")
    page.wait_for_function("() => window.extAppsHost.modelContext.length >= 1", timeout=15_000)
    [first] = host_record(page)["modelContext"]
    assert first["content"] == [
        {
            "type": "text",
            "text": f'Form {form_id} "Trip", answered in the widget: step 1 of 2 answered. '
            "Answers: Destination City: Tokyo; Departure Date: 2025-12-25",
        }
    ]
    assert (first["structuredContent"]["formId"], first["structuredContent"]["complete"]) == (form_id, False)

    view.locator("#root_adults").fill("2")
    view.locator("button[type=submit]").click()
    expect(view.locator('[data-testid="form-sent"]')).to_be_visible()
    page.wait_for_function("() => window.extAppsHost.modelContext.length >= 2", timeout=15_000)
    updates = host_record(page)["modelContext"]
    assert len(updates) == 2
    [text] = updates[1]["content"]
    assert text["text"].startswith(f'Form {form_id} "Trip", answered in the widget: sent.')
    assert "Travellers — Adults: 2" in text["text"]
    assert updates[1]["structuredContent"]["complete"] is True
    assert_view_ran_clean(page)
