"""The playground's argument editor: a form generated from each tool's inputSchema, prefilled with an example
that works, beside the raw JSON it stays in step with. (Calls a widget makes: test_playground_widget_calls.py.)"""

from __future__ import annotations

import json
from typing import Any

import pytest
from browser_support import DevServer, ToolCalls, widget
from playwright.sync_api import Page, expect
from served_tools import USER_TOOLS, needs_identity
from widget_mcp.apps.forms.chat_fallback import RECORD_TOOL


def raw_args(page: Page) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(page.locator('[data-testid="tool-args"]').input_value())
    return value


def choose(page: Page, server: DevServer, tool: str) -> None:
    """Open the playground and pick `tool`, as a user does; returns once its form is prefilled. A tool that needs an
    identified user is called in the ChatGPT host, which sends one (the default host sends none)."""
    page.goto(f"{server.base}/playground" + ("?host=chatgpt" if needs_identity(tool) else ""))
    expect(page.locator('[data-testid="args"]')).to_have_attribute("data-tool", USER_TOOLS[0])
    page.locator('[data-testid="tool-select"]').select_option(tool)
    expect(page.locator('[data-testid="args"]')).to_have_attribute("data-tool", tool)
    expect(page.locator('[data-testid="call-tool"]')).to_be_enabled()


# Recording a chat answer is for a form the client could not show: the playground shows every form (it declares
# the MCP Apps extension), so that call is refused, saying so (below).
CALLABLE = [tool for tool in USER_TOOLS if tool != RECORD_TOOL]


@pytest.mark.parametrize("tool", CALLABLE)
def test_every_tool_a_user_may_call_succeeds_from_its_prefilled_form_without_typing(
    page: Page, dev_server: DevServer, tool: str
) -> None:
    calls = ToolCalls(page)
    choose(page, dev_server, tool)
    page.locator('[data-testid="call-tool"]').click()
    answer = page.locator(f'[data-testid="chat-assistant"][data-tool="{tool}"], [data-testid="chat-error"]')
    expect(answer).to_have_count(1)
    expect(answer).to_have_attribute("data-outcome", "ok")
    assert calls.names()[-1] == tool
    assert calls.sent[-1]["arguments"] == raw_args(page)


def test_recording_a_chat_answer_to_a_form_the_playground_showed_is_refused_saying_it_is_answered_there(
    page: Page, dev_server: DevServer
) -> None:
    calls = ToolCalls(page)
    choose(page, dev_server, RECORD_TOOL)
    page.locator('[data-testid="call-tool"]').click()
    answer = page.locator(f'[data-testid="chat-assistant"][data-tool="{RECORD_TOOL}"], [data-testid="chat-error"]')
    expect(answer).to_have_count(1)
    expect(answer).to_contain_text("is shown to the user, who answers it there")
    assert calls.names()[-2:] == ["ask_question", RECORD_TOOL]


def test_a_link_naming_only_the_tool_calls_it_with_its_example(page: Page, dev_server: DevServer) -> None:
    page.goto(f"{dev_server.base}/playground?tool=display_demo")
    expect(widget(page).locator('[data-widget="text"]')).to_have_text("Hello from the playground")
    assert raw_args(page) == {"message": "Hello from the playground", "fail_after_widgets": False}


def test_picking_a_tool_that_needs_an_id_calls_nothing_and_calling_it_makes_the_id_first_saying_so(
    page: Page, dev_server: DevServer
) -> None:
    calls = ToolCalls(page)
    choose(page, dev_server, "chess_move")
    assert calls.names() == []
    assert raw_args(page) == {"move": "e4"}

    page.locator('[data-testid="call-tool"]').click()
    expect(page.locator('[data-testid="chat-assistant"][data-tool="chess_move"]')).to_have_attribute(
        "data-outcome", "ok"
    )
    assert calls.names() == ["chess_new_game", "chess_move"]
    game_id = raw_args(page)["gameId"]
    assert isinstance(game_id, str)
    note = f"No gameId known yet: called chess_new_game first to make one: {game_id}."
    expect(page.locator('[data-testid="chat-made-id"]')).to_have_text(note)
    assert calls.sent[-1]["arguments"] == {"gameId": game_id, "move": "e4"}

    # A reload finds the game just played, and picking calls nothing.
    page.reload()
    expect(page.locator('[data-testid="args"]')).to_have_attribute("data-tool", USER_TOOLS[0])
    page.locator('[data-testid="tool-select"]').select_option("chess_show_game")
    expect(page.locator('[data-testid="args"]')).to_have_attribute("data-tool", "chess_show_game")
    assert raw_args(page) == {"gameId": game_id}
    assert calls.names() == ["chess_new_game", "chess_move"]
    page.locator('[data-testid="call-tool"]').click()
    expect(page.locator('[data-testid="chat-assistant"][data-tool="chess_show_game"]')).to_have_attribute(
        "data-outcome", "ok"
    )
    assert calls.names() == ["chess_new_game", "chess_move", "chess_show_game"]
    stored = page.evaluate("Object.keys(localStorage)")
    assert stored == [f"widget-mcp-playground:ids:{dev_server.base}:mcp-apps"]  # kept per host too


def test_a_playground_load_with_sign_in_off_logs_no_console_error(page: Page, dev_server: DevServer) -> None:
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(f"{dev_server.base}/playground")
    expect(page.locator('[data-testid="args"]')).to_have_attribute("data-tool", USER_TOOLS[0])
    expect(page.locator('[data-testid="host-select"] option[value="signed-in"]')).to_be_disabled()
    assert errors == []


def test_the_form_and_the_raw_json_follow_each_other_both_ways(page: Page, dev_server: DevServer) -> None:
    choose(page, dev_server, "display_demo")
    message = page.locator("#root_message")
    expect(message).to_have_value("Hello from the playground")

    message.fill("typed in the form")
    page.locator("#root_fail_after_widgets").click()  # a controlled input: awaited, not asserted at once
    expect(page.locator("#root_fail_after_widgets")).to_be_checked()
    assert raw_args(page) == {"message": "typed in the form", "fail_after_widgets": True}

    page.locator('[data-testid="tool-args"]').fill('{"message": "typed as JSON"}')
    expect(message).to_have_value("typed as JSON")
    expect(page.locator("#root_fail_after_widgets")).not_to_be_checked()
    assert raw_args(page) == {"message": "typed as JSON"}  # the JSON stays as typed

    page.locator('[data-testid="tool-select"]').select_option("chess_new_game")
    expect(page.locator('[data-testid="args"]')).to_have_attribute("data-tool", "chess_new_game")
    page.locator("#root_opponent").select_option("engine")
    assert raw_args(page) == {"color": "white", "opponent": "engine"}


def test_the_raw_json_can_be_hidden_and_shown_again_and_the_call_still_sends_it(
    page: Page, dev_server: DevServer
) -> None:
    choose(page, dev_server, "display_demo")
    toggle = page.locator('[data-testid="args-json-toggle"]')
    raw = page.locator('[data-testid="tool-args"]')
    toggle.click()
    expect(raw).to_be_hidden()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    page.locator("#root_message").fill("json hidden")
    page.locator('[data-testid="call-tool"]').click()
    expect(widget(page).locator('[data-widget="text"]')).to_have_text("json hidden")
    toggle.click()
    expect(raw).to_be_visible()
    assert raw_args(page)["message"] == "json hidden"


def test_invalid_raw_json_is_named_in_a_sentence_and_nothing_is_called(page: Page, dev_server: DevServer) -> None:
    calls = ToolCalls(page)
    choose(page, dev_server, "display_demo")
    page.locator('[data-testid="tool-args"]').fill('{"message": ')
    problem = page.locator('[data-testid="args-error"]')
    expect(problem).to_contain_text("The arguments are not valid JSON")
    expect(problem).to_contain_text("The form shows the last valid arguments.")
    expect(page.locator("#root_message")).to_have_value("Hello from the playground")
    page.locator('[data-testid="call-tool"]').click()
    expect(page.locator('[data-testid="chat-error"]')).to_contain_text("The arguments are not valid JSON")

    page.locator('[data-testid="tool-args"]').fill("[1, 2]")
    expect(problem).to_contain_text('The arguments must be a JSON object, such as {"message": "hi"}.')
    page.locator('[data-testid="tool-args"]').fill('{"message": "fixed"}')
    expect(problem).to_be_hidden()
    assert calls.names() == []


def test_a_field_in_error_is_drawn_red(page: Page, dev_server: DevServer) -> None:
    choose(page, dev_server, "display_demo")
    message = page.locator("#root_message")
    normal = message.evaluate("(node) => getComputedStyle(node).borderTopColor")
    # The required mark is drawn in the page's error colour (--error-fg).
    red = page.locator('label[for="root_message"] .required').evaluate("(node) => getComputedStyle(node).color")
    assert red != normal
    message.fill("")  # the message must not be empty
    expect(page.locator(".args-form .has-error #root_message")).to_have_count(1)
    expect(message).to_have_css("border-top-color", red)
