"""The ids the playground remembers from earlier results (gameId, formId): kept per server origin and host, since
each host is another principal, and forgotten once the server answers that it knows them no more (as after a
restart of `make dev`, which starts with empty state)."""

from __future__ import annotations

import json
from typing import Any

from browser_support import DevServer, ToolCalls
from playwright.sync_api import Page, expect

KEY = "widget-mcp-playground:ids"


def raw_args(page: Page) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(page.locator('[data-testid="tool-args"]').input_value())
    return value


def pick(page: Page, tool: str) -> None:
    page.locator('[data-testid="tool-select"]').select_option(tool)
    expect(page.locator('[data-testid="args"]')).to_have_attribute("data-tool", tool)


def open_as(page: Page, server: DevServer, host: str) -> None:
    page.goto(f"{server.base}/playground?host={host}")
    expect(page.locator(".playground")).to_have_attribute("data-state", "ready")


def call_and_expect(page: Page, tool: str, outcome: str, answers: int = 1) -> None:
    page.locator('[data-testid="call-tool"]').click()
    answer = page.locator(f'[data-testid="chat-assistant"][data-tool="{tool}"], [data-testid="chat-error"]')
    expect(answer).to_have_count(answers)
    expect(answer.last).to_have_attribute("data-outcome", outcome)


def remembered_game_ids(page: Page, server: DevServer, host: str) -> list[str]:
    stored = json.loads(page.evaluate("key => localStorage.getItem(key) ?? '[]'", f"{KEY}:{server.base}:{host}"))
    return [k["value"] for k in stored if k["field"] == "gameId"]


def test_an_id_remembered_as_one_host_is_not_offered_as_another_and_is_offered_again_as_the_first(
    page: Page, dev_server: DevServer
) -> None:
    calls = ToolCalls(page)
    open_as(page, dev_server, "mcp-apps")
    pick(page, "chess_new_game")
    call_and_expect(page, "chess_new_game", "ok")
    mcp_apps_game = remembered_game_ids(page, dev_server, "mcp-apps")[0]

    page.locator('[data-testid="host-select"]').select_option("chatgpt")
    expect(page.locator(".playground")).to_have_attribute("data-host", "chatgpt")
    expect(page.locator(".playground")).to_have_attribute("data-state", "ready")
    pick(page, "chess_show_game")
    assert "gameId" not in raw_args(page)
    call_and_expect(page, "chess_show_game", "ok")
    assert calls.names() == ["chess_new_game", "chess_new_game", "chess_show_game"]
    chatgpt_game = raw_args(page)["gameId"]
    assert chatgpt_game != mcp_apps_game
    assert remembered_game_ids(page, dev_server, "chatgpt") == [chatgpt_game]

    page.locator('[data-testid="host-select"]').select_option("mcp-apps")
    expect(page.locator(".playground")).to_have_attribute("data-host", "mcp-apps")
    expect(page.locator(".playground")).to_have_attribute("data-state", "ready")
    pick(page, "chess_show_game")
    assert raw_args(page) == {"gameId": mcp_apps_game}
    keys = page.evaluate("Object.keys(localStorage)")
    assert sorted(keys) == [f"{KEY}:{dev_server.base}:chatgpt", f"{KEY}:{dev_server.base}:mcp-apps"]


def test_after_a_not_found_answer_the_id_is_forgotten_and_the_next_call_makes_a_new_game(
    page: Page, dev_server: DevServer
) -> None:
    # What a page holds after `make dev` restarted: ids of games the server's fresh state never had.
    open_as(page, dev_server, "mcp-apps")
    dead = [{"field": "gameId", "value": "g-gone-newest"}, {"field": "gameId", "value": "g-gone-older"}]
    key = f"{KEY}:{dev_server.base}:mcp-apps"
    page.evaluate("([key, list]) => localStorage.setItem(key, list)", [key, json.dumps(dead)])
    calls = ToolCalls(page)
    open_as(page, dev_server, "mcp-apps")
    pick(page, "chess_show_game")
    assert raw_args(page) == {"gameId": "g-gone-newest"}

    call_and_expect(page, "chess_show_game", "error")
    forgot = page.locator('[data-testid="chat-forgot-id"]')
    expect(forgot).to_have_text(
        "The server knows no gameId g-gone-newest: forgotten, so the next call makes a new one first."
    )
    assert "gameId" not in raw_args(page)
    assert remembered_game_ids(page, dev_server, "mcp-apps") == []  # the older one went with it

    call_and_expect(page, "chess_show_game", "ok", answers=2)
    assert calls.names() == ["chess_show_game", "chess_new_game", "chess_show_game"]
    new_game = raw_args(page)["gameId"]
    assert calls.sent[-1]["arguments"] == {"gameId": new_game}
    assert remembered_game_ids(page, dev_server, "mcp-apps") == [new_game]
