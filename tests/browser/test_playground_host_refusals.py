"""The playground refuses, as the host it plays would, a widget's call to a tool that host refuses: a tool not declared
widget_accessible (ChatGPT reads `openai/widgetAccessible`, an MCP Apps host `ui.visibility`), through window.openai
and through the MCP Apps bridge alike, with a visible message in the chat and nothing sent to the server; a
widget-accessible tool's call goes through. The tools are taken from the server's own tools/list, so the test follows
the declarations."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from browser_support import DevServer, ToolCalls, chess, widget, widget_frame
from playwright.sync_api import Page, expect

# A tools/call posted from the widget's frame as an MCP Apps view sends it (JSON-RPC over postMessage to its host);
# resolves with the host's answer.
_MCP_APPS_CALL = """(name) => new Promise((resolve) => {
  const id = 990001;
  window.addEventListener("message", (event) => {
    if (event.data && event.data.id === id) resolve(event.data);
  });
  window.parent.postMessage({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {} } }, "*");
})"""
_OPENAI_CALL = "(name) => window.openai.callTool(name, {}).then(() => 'answered', (e) => 'rejected: ' + e.message)"


def tools_of(server: DevServer) -> list[dict[str, Any]]:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    answer = httpx.post(f"{server.base}/mcp", json=message, headers={"accept": "application/json"}, timeout=10)
    tools: list[dict[str, Any]] = answer.json()["result"]["tools"]
    return tools


def tool_where(server: DevServer, widget_accessible: bool) -> str:
    names = [
        t["name"]
        for t in tools_of(server)
        if bool((t.get("_meta") or {}).get("openai/widgetAccessible")) == widget_accessible
    ]
    assert names, f"no served tool has widget_accessible={widget_accessible}"
    return str(names[0])


def call_from_widget(page: Page, server: DevServer, host: dict[str, str], bridge: str, tool: str) -> tuple[int, Any]:
    """Open a board as `host` plays it, then have its widget call `tool` through `bridge`: how many calls to `tool`
    reached the server meanwhile, and what the widget was answered."""
    calls = ToolCalls(page)
    page.goto(server.playground("chess_new_game", {}, **host))
    expect(chess(widget(page))).to_have_attribute("data-ply", "0")
    before = calls.names().count(tool)
    answer = widget_frame(page).evaluate(_OPENAI_CALL if bridge == "openai" else _MCP_APPS_CALL, tool)
    return calls.names().count(tool) - before, answer


HOSTS = [
    ({"host": "chatgpt", "bridge": "openai"}, "openai", "ChatGPT refused"),
    ({"host": "chatgpt", "bridge": "both"}, "mcp-apps", "ChatGPT refused"),
    ({"host": "mcp-apps"}, "mcp-apps", 'leaves out "app"'),
]


@pytest.mark.parametrize(("host", "bridge", "says"), HOSTS, ids=["chatgpt-openai", "chatgpt-mcp-apps", "mcp-apps"])
def test_a_widgets_call_to_a_tool_not_widget_accessible_is_refused_visibly_and_nothing_is_sent(
    page: Page, dev_server: DevServer, host: dict[str, str], bridge: str, says: str
) -> None:
    refused = tool_where(dev_server, widget_accessible=False)
    sent, answer = call_from_widget(page, dev_server, host, bridge, refused)

    assert says in (str(answer) if bridge == "openai" else answer["error"]["message"]), answer
    message = page.locator(f'[data-testid="chat-refusal"][data-tool="{refused}"]')
    expect(message).to_be_visible()
    expect(message).to_contain_text(says)
    expect(message).to_contain_text("widget_accessible=True")
    assert sent == 0  # never reached the server


@pytest.mark.parametrize(("host", "bridge", "says"), HOSTS, ids=["chatgpt-openai", "chatgpt-mcp-apps", "mcp-apps"])
def test_a_widgets_call_to_a_widget_accessible_tool_reaches_the_server(
    page: Page, dev_server: DevServer, host: dict[str, str], bridge: str, says: str
) -> None:
    tool = tool_where(dev_server, widget_accessible=True)
    sent, answer = call_from_widget(page, dev_server, host, bridge, tool)

    # The widget is answered by the server, not refused by the host.
    assert (answer == "answered") if bridge == "openai" else ("result" in answer), answer
    expect(page.locator(f'[data-testid="chat-widget-result"][data-tool="{tool}"]')).to_be_visible()
    expect(page.locator('[data-testid="chat-refusal"]')).to_have_count(0)
    assert sent == 1
