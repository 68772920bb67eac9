"""An app-only tool is refused to a 2025-11-25 client known not to show widgets whatever shape it takes its
response in: an event stream, or JSON alone (a client whose Accept names only application/json, whose call's stream
cannot carry input requests but whose session still says what it shows). Raw HTTP, as such clients send it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from raw_session import RawSession
from servers import serve
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit.call import APPS_EXTENSION
from widget_mcp.toolkit.client_surface import app_only
from widget_mcp.toolkit.widgets import APP_MIME_TYPE
from widget_mcp.wiring import build_app, build_core

ACCEPTS = {"json only": "application/json", "event stream": "application/json, text/event-stream"}
# What an MCP Apps host declares in `initialize`.
SHOWS_APPS = {"extensions": {APPS_EXTENSION: {"mimeTypes": [APP_MIME_TYPE]}}}
FLAT = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


@pytest.fixture
def mcp_url(settings: Settings) -> Iterator[str]:
    with serve(build_app(build_core(settings, concurrent=True, store=InMemoryDocumentStore()))) as url:
        yield f"{url}/mcp"


def _code(result: dict[str, Any]) -> str | None:
    code = ((result.get("_meta") or {}).get("error") or {}).get("code")
    return code if isinstance(code, str) else None


@pytest.mark.parametrize("accept", list(ACCEPTS.values()), ids=list(ACCEPTS))
def test_a_client_known_not_to_show_widgets_is_refused_each_app_only_tool_as_json_or_as_a_stream(
    mcp_url: str, accept: str
) -> None:
    with httpx.Client(timeout=10) as http:
        bare = RawSession(http, mcp_url, accept, {})
        host = RawSession(http, mcp_url, accept, SHOWS_APPS)
        only_for_apps = [t["name"] for t in host.request("tools/list", {})["tools"] if app_only(t)]
        assert "submit_form" in only_for_apps  # the registry declares it app-only (the forms widget's tool)
        form_id = bare.call("ask_question", {"question": FLAT})["structuredContent"]["formId"]
        refused = {name: bare.call(name, {"formId": form_id, "data": {"city": "Oslo"}}) for name in only_for_apps}
        pending = bare.call("get_form_response", {"formId": form_id})
        by_host = host.call("submit_form", {"formId": form_id, "data": {"city": "Oslo"}})
    for name, result in refused.items():
        assert result["isError"] is True, name
        assert _code(result) == "app_only", name
        assert "not for the model" in result["content"][0]["text"]
    assert pending["structuredContent"]["type"] == "dgui_pending"  # nothing the refused calls sent was stored
    # A session that declared the extension reaches the tool (and meets its own check: no widget's key here).
    assert _code(by_host) == "answer_key_invalid"
