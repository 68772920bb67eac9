"""Goose, as its MCP client introduces itself (block/goose, crates/goose/src/agents/mcp_client.rs, GooseClient's
`get_info`): Goose Desktop (`clientInfo.name` "goose-desktop") declares the MCP Apps extension with its MIME type,
Goose CLI ("goose-cli") does not, and both ask for protocol 2025-03-26. This server keeps a client's capabilities only
in a 2025-11-25 session, so what Goose declares over 2025-03-26 is not known on its calls: it is offered every tool,
and a form gets the text that says the user may not see it plus the widget's key, which Goose Desktop's widget
answers with. Over 2025-11-25 (a Goose that asks for it) its declaration decides."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from raw_session import RawSession
from servers import serve
from widget_mcp.apps.forms.answer_keys import ANSWER_KEY_META
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit.call import APPS_EXTENSION
from widget_mcp.toolkit.client_surface import app_only
from widget_mcp.toolkit.widgets import APP_MIME_TYPE
from widget_mcp.wiring import build_app, build_core

ACCEPT = "application/json, text/event-stream"
GOOSE_VERSION = "2025-03-26"
# GooseClient::get_info: roots, sampling and elicitation always; the extension where the platform shows MCP Apps
# (`mcpui`: true for GoosePlatform::GooseDesktop, false for GooseCli, crates/goose/src/agents/agent.rs).
GOOSE_CLI = {"roots": {}, "sampling": {}, "elicitation": {}}
GOOSE_DESKTOP = {**GOOSE_CLI, "extensions": {APPS_EXTENSION: {"mimeTypes": [APP_MIME_TYPE]}}}
GOOSES = {"goose-desktop": GOOSE_DESKTOP, "goose-cli": GOOSE_CLI}
CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
# A form no elicitation carries (a nested group): a client that elicits, as Goose CLI does, gets it in text.
GUEST = {"type": "object", "properties": {"guest": {"type": "object", "properties": {"name": {"type": "string"}}}}}


@pytest.fixture
def mcp_url(settings: Settings) -> Iterator[str]:
    with serve(build_app(build_core(settings, concurrent=True, store=InMemoryDocumentStore()))) as url:
        yield f"{url}/mcp"


def _tools(goose: RawSession) -> dict[str, dict[str, Any]]:
    return {tool["name"]: tool for tool in goose.request("tools/list", {})["tools"]}


@pytest.mark.parametrize("name", list(GOOSES))
def test_goose_over_its_2025_03_26_handshake_is_offered_every_tool_and_its_widget_can_answer_a_form(
    mcp_url: str, name: str
) -> None:
    with httpx.Client(timeout=10) as http:
        goose = RawSession(http, mcp_url, ACCEPT, GOOSES[name], version=GOOSE_VERSION, name=name)
        tools = _tools(goose)
        asked = goose.call("ask_question", {"question": CITY})
        form_id, key = asked["structuredContent"]["formId"], asked["_meta"].get(ANSWER_KEY_META)
        by_widget = goose.call("submit_form", {"formId": form_id, "data": {"city": "Oslo"}, "answerKey": key})
    assert goose.version == GOOSE_VERSION
    assert goose.session_id is None  # nothing of its declaration is kept for its calls
    assert any(app_only(tool) for tool in tools.values())
    assert "may not see this one" in asked["content"][0]["text"]
    assert key  # for Goose Desktop's widget, which shows the form from the tool's template
    assert key not in asked["content"][0]["text"]
    assert by_widget["structuredContent"]["data"] == {"city": "Oslo"}


def test_goose_over_2025_11_25_is_shown_the_form_on_desktop_and_told_in_text_on_the_cli(mcp_url: str) -> None:
    with httpx.Client(timeout=10) as http:
        desktop = RawSession(http, mcp_url, ACCEPT, GOOSE_DESKTOP, name="goose-desktop")
        cli = RawSession(http, mcp_url, ACCEPT, GOOSE_CLI, name="goose-cli")
        desktop_tools, cli_tools = _tools(desktop), _tools(cli)
        on_desktop = desktop.call("ask_question", {"question": GUEST, "title": "Who?"})
        on_cli = cli.call("ask_question", {"question": GUEST, "title": "Who?"})
    only_for_apps = {name for name, tool in desktop_tools.items() if app_only(tool)}
    assert only_for_apps
    assert not only_for_apps & set(cli_tools)
    assert on_desktop["content"][0]["text"].startswith("Showing a form: Who?")
    assert on_desktop["_meta"][ANSWER_KEY_META]
    assert "cannot show forms" in on_cli["content"][0]["text"]
    assert ANSWER_KEY_META not in on_cli["_meta"]
