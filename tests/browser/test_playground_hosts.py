"""The three hosts the playground emulates, chosen in its header and named in the URL (`host=`): a generic MCP
Apps host (the default: no identity at all, as Claude, VS Code and the ext-apps reference host send), ChatGPT
(window.openai too, and `openai/subject` on every call), and signed in (a bearer token from `make dev`'s local
issuer, with AUTH_MODE=oauth)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from browser_support import CHATGPT, SUBJECT, DevServer, chess, click_move, widget
from playwright.sync_api import Page, Request, expect
from widget_mcp.local.issuer import LOCAL_USER
from widget_mcp.local.process import local_server

IDENTITY_KEYS = ("openai/subject", "io.modelcontextprotocol/user")


@dataclass(frozen=True)
class McpCall:
    method: str
    name: str | None
    meta: dict[str, Any] | None
    authorization: str | None


class McpCalls:
    """Every request the page (the playground, for itself or for its widget) sends to /mcp."""

    def __init__(self, page: Page) -> None:
        self._requests: list[Request] = []
        page.on("request", lambda r: self._requests.append(r) if r.url.endswith("/mcp") else None)

    def tool_calls(self) -> list[McpCall]:
        calls = []
        for request in self._requests:
            body = request.post_data_json
            if not isinstance(body, dict) or body.get("method") != "tools/call":
                continue
            params = body["params"]
            authorization = request.all_headers().get("authorization")
            calls.append(McpCall(body["method"], params.get("name"), params.get("_meta"), authorization))
        return calls


@pytest.fixture(scope="module")
def signed_in_server() -> Iterator[DevServer]:
    """`make dev` with AUTH_MODE=oauth: the chess and forms tools need a token from the local issuer."""
    with local_server("browser-sign-in-state", settings={"AUTH_MODE": "oauth"}) as server:
        yield DevServer(server.base)


def host_select(page: Page) -> Any:
    return page.get_by_label("host", exact=True)


def test_the_default_host_is_the_mcp_apps_host_named_in_the_url_and_chosen_in_the_header(
    page: Page, dev_server: DevServer
) -> None:
    page.goto(dev_server.playground("display_demo", {"message": "which host"}))
    expect(widget(page).locator('[data-widget="text"]')).to_have_text("which host")
    expect(host_select(page)).to_have_value("mcp-apps")
    expect(page.locator('[data-testid="host-identity"]')).to_contain_text("no identity")
    assert "host=mcp-apps" in page.url
    # Choosing another host in the header starts the playground again as that host, with the same call.
    host_select(page).select_option("chatgpt")
    expect(page).to_have_url(re.compile(r"[?&]host=chatgpt(&|$)"))
    assert "tool=display_demo" in page.url
    expect(widget(page).locator('[data-widget="text"]')).to_have_text("which host")
    expect(widget(page).locator("html")).to_have_attribute("data-bridge", "mcp-apps")
    assert widget(page).locator("html").evaluate("() => typeof window.openai") == "object"


def test_as_an_mcp_apps_host_no_call_carries_an_identity_and_the_widget_finds_no_window_openai(
    page: Page, dev_server: DevServer
) -> None:
    calls = McpCalls(page)
    page.goto(dev_server.playground("chess_new_game", {"opponent": "engine"}, host="mcp-apps"))
    frame = widget(page)
    expect(chess(frame)).to_have_attribute("data-ply", "0")
    click_move(frame, "e2", "e4", ply_after=2)  # the widget's own call, and the engine's reply
    expect(frame.locator("html")).to_have_attribute("data-bridge", "mcp-apps")
    assert frame.locator("html").evaluate("() => typeof window.openai") == "undefined"
    tool_calls = calls.tool_calls()
    assert [c.name for c in tool_calls] == ["chess_new_game", "chess_move"]
    for call in tool_calls:
        assert not any(key in (call.meta or {}) for key in IDENTITY_KEYS), call
        assert call.authorization is None
    # An anonymous game is reached by its id alone: no identified user lists it.
    game_id = chess(frame).get_attribute("data-game-id")
    listed = dev_server.call_tool("chess_list_games", {}, CHATGPT)["structuredContent"]["games"]
    assert game_id not in [g["gameId"] for g in listed]


def test_as_chatgpt_every_call_carries_openai_subject_and_the_widget_has_window_openai(
    page: Page, dev_server: DevServer
) -> None:
    calls = McpCalls(page)
    page.goto(dev_server.playground("chess_new_game", {}, host="chatgpt"))
    frame = widget(page)
    expect(chess(frame)).to_have_attribute("data-ply", "0")
    click_move(frame, "d2", "d4", ply_after=1)
    assert frame.locator("html").evaluate("() => typeof window.openai?.callTool") == "function"
    expect(page.locator('[data-testid="host-identity"]')).to_contain_text(f"openai/subject = {SUBJECT}")
    tool_calls = calls.tool_calls()
    assert [c.name for c in tool_calls] == ["chess_new_game", "chess_move"]
    assert all((c.meta or {}).get("openai/subject") == SUBJECT for c in tool_calls)
    # The subject reached the server: the game is the ChatGPT user's.
    game_id = chess(frame).get_attribute("data-game-id")
    listed = dev_server.call_tool("chess_list_games", {}, CHATGPT)["structuredContent"]["games"]
    assert game_id in [g["gameId"] for g in listed]


def test_with_sign_in_off_the_signed_in_host_says_so_and_calls_nothing(page: Page, dev_server: DevServer) -> None:
    calls = McpCalls(page)
    page.goto(dev_server.playground("display_demo", {"message": "nope"}, host="signed-in"))
    expect(page.locator(".playground")).to_have_attribute("data-state", "error")
    option = host_select(page).locator('option[value="signed-in"]')
    expect(option).to_be_disabled()
    expect(option).to_have_attribute("title", re.compile(r"^Sign-in is off on this server: .*AUTH_MODE=oauth"))
    expect(page.locator('[data-testid="chat-error"]')).to_contain_text("AUTH_MODE=oauth")
    expect(page.locator('[data-testid="widget-frame"]')).to_have_count(0)
    assert calls.tool_calls() == []


def test_signed_in_a_protected_tool_works_with_a_token_from_the_local_issuer(
    page: Page, signed_in_server: DevServer
) -> None:
    calls = McpCalls(page)
    page.goto(signed_in_server.playground("chess_new_game", {}, host="signed-in"))
    frame = widget(page)
    expect(chess(frame)).to_have_attribute("data-ply", "0")
    click_move(frame, "e2", "e4", ply_after=1)
    expect(page.locator('[data-testid="host-identity"]')).to_contain_text(f"signed in as {LOCAL_USER}")
    tool_calls = calls.tool_calls()
    assert [c.name for c in tool_calls] == ["chess_new_game", "chess_move"]
    for call in tool_calls:
        assert (call.authorization or "").startswith("Bearer ")
        assert not any(key in (call.meta or {}) for key in IDENTITY_KEYS), call


def test_with_sign_in_on_the_mcp_apps_host_is_refused_a_protected_tool(page: Page, signed_in_server: DevServer) -> None:
    page.goto(signed_in_server.playground("chess_new_game", {}, host="mcp-apps"))
    expect(page.locator(".playground")).to_have_attribute("data-state", "error")
    expect(page.locator('[data-testid="chat-error"]')).to_contain_text("Sign in to use this tool. (HTTP 401)")
    expect(host_select(page).locator('option[value="signed-in"]')).to_be_enabled()
