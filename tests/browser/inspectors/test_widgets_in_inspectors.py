"""Our widgets in two third-party hosts, driven as a user drives them (inspector_hosts.py): the MCPJam inspector
(ChatGPT's dialect: `window.openai`, whose callTool hands the widget `_meta: null`) and the mcp-use inspector (MCP
Apps, declaring no `message`, with a `window.openai` beside it). In each, a tool is run from the host's own tools
page, the board in its widget plays a move for white and then one for black, and a form is answered where that host
shows it, with no error notice from the host or the widget."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from browser_support import DevServer, settled
from inspector_hosts import HOST_ERRORS, Inspector, loopback_context, mcp_use, mcpjam, open_in_mcp_use
from playwright.sync_api import Browser, Frame, FrameLocator, Page, expect

FORM = {
    "type": "object",
    "required": ["name", "guests"],
    "properties": {
        "name": {"type": "string", "title": "Name"},
        "guests": {"type": "integer", "title": "Guests", "minimum": 1},
    },
}
ANSWER = {"name": "Ada Lovelace", "guests": 3}


@pytest.fixture
def jam(dev_server: DevServer) -> Iterator[Inspector]:
    """One per test: its server keeps its connection to ours, and a second page's connect on load then fails."""
    with mcpjam(f"{dev_server.base}/mcp") as running:
        yield running


@pytest.fixture(scope="module")
def use(dev_server: DevServer) -> Iterator[Inspector]:
    with mcp_use(f"{dev_server.base}/mcp") as running:
        yield running


@pytest.fixture
def host_page(browser: Browser) -> Iterator[Page]:
    with loopback_context(browser) as context:
        yield context.new_page()


CONNECT_TIMEOUT_MS = 30_000


def play(view: FrameLocator, frame: str, origin: str, target: str, ply_after: int) -> None:
    """Each click once the host's frame (`frame`, its selector) stopped resizing to the widget's new height: a click
    aimed meanwhile lands on another square (browser_support.settled)."""
    page = view.owner.page
    for square in (origin, target):
        settled(page, frame)
        view.locator(f'[data-square="{square}"]').click()
    expect(view.locator(".wm-chess")).to_have_attribute("data-ply", str(ply_after))


def white_then_black(view: FrameLocator, frame: str) -> None:
    """e4 by white, then black's e5: the move a board that kept white's legal moves refuses."""
    expect(view.locator(".wm-chess")).to_have_attribute("data-ply", "0")
    play(view, frame, "e2", "e4", 1)
    play(view, frame, "e7", "e5", 2)
    play(view, frame, "g1", "f3", 3)
    expect(view.locator('[data-square="e5"]')).to_have_attribute("data-piece", "bP")


# --- the mcp-use inspector (MCP Apps) ---


def view_runtime(page: Page) -> dict[str, Any]:
    """Which bridge the view took and whether the host also gave it a window.openai."""
    frame = next(f for f in page.frames if f.url == "about:srcdoc" and f.evaluate("!!document.querySelector('#root')"))
    found: dict[str, Any] = frame.evaluate(
        "({bridge: document.documentElement.dataset.bridge, openai: typeof window.openai?.sendFollowUpMessage})"
    )
    return found


def test_in_the_mcp_use_inspector_the_board_plays_white_then_black_from_inside_the_widget(
    host_page: Page, use: Inspector
) -> None:
    view = open_in_mcp_use(host_page, use, "chess_new_game")
    white_then_black(view, 'iframe[title="MCP App: chess_new_game"]')
    expect(host_page.locator(HOST_ERRORS)).to_have_count(0)


def test_in_the_mcp_use_inspector_a_form_is_sent_from_the_widget_with_no_error_notice(
    host_page: Page, use: Inspector, dev_server: DevServer
) -> None:
    view = open_in_mcp_use(host_page, use, "ask_question", {"question": json.dumps(FORM), "title": "Dinner booking"})
    form = view.locator(".wm-form")
    expect(form).to_have_attribute("data-state", "ready")
    # The case the widget must get right: an MCP Apps host with no `message`, and a window.openai that has one.
    assert view_runtime(host_page) == {"bridge": "mcp-apps", "openai": "function"}
    view.locator("#root_name").fill(str(ANSWER["name"]))
    view.locator("#root_guests").fill(str(ANSWER["guests"]))
    view.locator("button[type=submit]").click()

    expect(view.locator('[data-testid="form-sent"]')).to_be_visible()
    expect(form).to_have_attribute("data-state", "sent")
    expect(view.locator('[data-testid="form-message"]')).to_have_count(0)
    expect(host_page.locator(HOST_ERRORS)).to_have_count(0)
    form_id = form.get_attribute("data-form-id")
    assert form_id
    answer = dev_server.call_tool("get_form_response", {"formId": form_id})["structuredContent"]
    assert (answer["type"], answer["data"]) == ("dgui_response", ANSWER)


# --- the MCPJam inspector (ChatGPT's window.openai) ---


def open_in_mcpjam(page: Page, host: Inspector, tool: str) -> None:
    page.goto(host.url)
    page.get_by_text("Or continue as guest").click()  # no account: everything below runs without signing in
    # It connects to the server after its own start-up (a Node server and a bundle under the suite's load): bounded
    # by the inspector context's timeout rather than expect's 5 s default.
    expect(page.get_by_text("Connected", exact=True)).to_be_visible(timeout=CONNECT_TIMEOUT_MS)
    page.get_by_text("Tools", exact=True).first.click()
    page.get_by_text(tool, exact=True).first.click()


def jam_view(page: Page, tool: str) -> FrameLocator:
    return page.frame_locator(f'iframe[title="OpenAI Component: {tool}"]')


def jam_frame(page: Page, tool: str) -> Frame:
    """The widget's frame itself, for reading its window.openai."""
    handle = page.locator(f'iframe[title="OpenAI Component: {tool}"]').element_handle()
    frame = handle.content_frame() if handle else None
    assert frame is not None
    frame.wait_for_function("() => Boolean(window.openai)")
    return frame


def test_in_mcpjam_the_board_plays_white_then_black_though_its_call_tool_drops_meta(
    host_page: Page, jam: Inspector
) -> None:
    open_in_mcpjam(host_page, jam, "chess_new_game")
    host_page.locator("select").nth(1).select_option("human")
    host_page.get_by_role("button", name="Execute").click()
    view = jam_view(host_page, "chess_new_game")
    expect(view.locator(".wm-chess")).to_have_attribute("data-ply", "0")
    # What makes this host hard: the results of the widget's own calls come without their _meta.
    frame = jam_frame(host_page, "chess_new_game")
    handed = frame.evaluate("async () => (await window.openai.callTool('chess_list_games', {}))._meta")
    assert handed is None
    white_then_black(view, 'iframe[title="OpenAI Component: chess_new_game"]')
    expect(host_page.locator(HOST_ERRORS)).to_have_count(0)


def test_in_mcpjam_a_form_is_answered_in_its_own_elicitation_dialog_with_no_error_notice(
    host_page: Page, jam: Inspector
) -> None:
    # MCPJam declares elicitation and not MCP Apps: a form elicitation can carry is asked in its dialog.
    open_in_mcpjam(host_page, jam, "ask_question")
    host_page.get_by_placeholder("Enter question").fill(json.dumps(FORM))
    host_page.get_by_placeholder("Enter title").fill("Dinner booking")
    host_page.get_by_role("button", name="Execute").click()
    dialog = host_page.get_by_role("dialog")
    expect(dialog).to_contain_text("Dinner booking")
    dialog.get_by_placeholder("Enter name").fill(str(ANSWER["name"]))
    dialog.get_by_placeholder("Enter guests").fill(str(ANSWER["guests"]))
    dialog.get_by_role("button", name="Accept").click()
    expect(dialog).to_have_count(0)

    # The result it renders carries the answer as its structured content.
    output = jam_frame(host_page, "ask_question").evaluate("window.openai.toolOutput")
    assert (output["type"], output["data"]) == ("dgui_response", ANSWER)
    expect(host_page.locator(HOST_ERRORS)).to_have_count(0)
