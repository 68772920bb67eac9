"""An app-only tool is refused to a 2025-11-25 client known not to show widgets whatever shape it takes its
response in: an event stream, or JSON alone (a client whose Accept names only application/json, whose call's stream
cannot carry input requests but whose session still says what it shows). Raw HTTP, as such clients send it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from servers import serve
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit.call import APPS_EXTENSION
from widget_mcp.toolkit.client_surface import app_only
from widget_mcp.toolkit.widgets import APP_MIME_TYPE
from widget_mcp.wiring import build_app, build_core

VERSION = "2025-11-25"
ACCEPTS = {"json only": "application/json", "event stream": "application/json, text/event-stream"}
# What an MCP Apps host declares in `initialize`.
SHOWS_APPS = {"extensions": {APPS_EXTENSION: {"mimeTypes": [APP_MIME_TYPE]}}}
FLAT = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


@pytest.fixture
def mcp_url(settings: Settings) -> Iterator[str]:
    with serve(build_app(build_core(settings, concurrent=True, store=InMemoryDocumentStore()))) as url:
        yield f"{url}/mcp"


def _message(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC response a POST answered with, as JSON or as the last message of its event stream."""
    assert response.status_code == 200, response.text
    if response.headers["content-type"].startswith("application/json"):
        body: dict[str, Any] = response.json()
        return body
    lines = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
    messages = [json.loads(line) for line in lines if line]
    return next(m for m in reversed(messages) if "id" in m)


class Session:
    """A 2025-11-25 client over raw HTTP: one initialize, then requests naming the session it was given."""

    def __init__(self, http: httpx.Client, url: str, accept: str, capabilities: dict[str, Any]) -> None:
        self._http, self._url, self._next = http, url, 1
        self._headers = {"accept": accept, "content-type": "application/json", "mcp-protocol-version": VERSION}
        params = {
            "protocolVersion": VERSION,
            "capabilities": capabilities,
            "clientInfo": {"name": "agent", "version": "1"},
        }
        started = self._post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
        self._headers["mcp-session-id"] = started.headers["mcp-session-id"]
        self._post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _post(self, message: dict[str, Any]) -> httpx.Response:
        return self._http.post(self._url, json=message, headers=self._headers)

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self._next += 1
        answer = _message(self._post({"jsonrpc": "2.0", "id": self._next, "method": method, "params": params}))
        assert "result" in answer, answer
        result: dict[str, Any] = answer["result"]
        return result

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.request("tools/call", {"name": tool, "arguments": arguments})


def _code(result: dict[str, Any]) -> str | None:
    code = ((result.get("_meta") or {}).get("error") or {}).get("code")
    return code if isinstance(code, str) else None


@pytest.mark.parametrize("accept", list(ACCEPTS.values()), ids=list(ACCEPTS))
def test_a_client_known_not_to_show_widgets_is_refused_each_app_only_tool_as_json_or_as_a_stream(
    mcp_url: str, accept: str
) -> None:
    with httpx.Client(timeout=10) as http:
        bare = Session(http, mcp_url, accept, {})
        host = Session(http, mcp_url, accept, SHOWS_APPS)
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
