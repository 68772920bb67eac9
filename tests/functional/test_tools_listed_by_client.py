"""Which tools each client is offered, through the official client over HTTP in both eras: a client known not to
show widgets (2026-07-28 capabilities, or a 2025-11-25 session that keeps them) is not offered the app-only tools,
one that shows widgets is (by declaring the MCP Apps extension, or by the name of a host that renders MCP Apps
without declaring it, as VS Code does), and the cached answer of one is never the other's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from form_keys import MCP_APPS
from mcp import Client
from mcp_types import Implementation
from servers import serve
from tool_results import error_of, structured
from widget_mcp.apps.forms.answer_keys import ANSWER_KEY_META
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit.client_surface import WIDGET_HOST_NAMES, app_only
from widget_mcp.wiring import build_app, build_core

ERAS = ["2026-07-28", "legacy"]


def _url(settings: Settings) -> Iterator[str]:
    with serve(build_app(build_core(settings, concurrent=True, store=InMemoryDocumentStore()))) as url:
        yield f"{url}/mcp"


@pytest.fixture
def mcp_url(settings: Settings) -> Iterator[str]:
    yield from _url(settings)


@pytest.fixture
def sessionless_url(settings: Settings) -> Iterator[str]:
    yield from _url(settings.model_copy(update={"resumable_streams": False}))


def _client(url: str, era: str, *, apps: bool = False, name: str | None = None) -> Client:
    info = Implementation(name=name, version="1.0") if name is not None else None
    return Client(url, mode=era, extensions=[MCP_APPS] if apps else [], client_info=info)  # type: ignore[arg-type]


async def _names(url: str, era: str, *, apps: bool, name: str | None = None) -> list[str]:
    async with _client(url, era, apps=apps, name=name) as mcp:
        return [tool.name for tool in (await mcp.list_tools()).tools]


async def _app_only_names(url: str) -> set[str]:
    async with Client(url, mode="2026-07-28", extensions=[MCP_APPS]) as mcp:
        return {t.name for t in (await mcp.list_tools()).tools if app_only(t.model_dump(by_alias=True))}


@pytest.mark.parametrize("era", ERAS)
async def test_a_client_that_shows_no_widgets_is_not_offered_app_only_tools_and_never_shares_a_widget_hosts_list(
    mcp_url: str, era: str
) -> None:
    only_for_apps = await _app_only_names(mcp_url)
    assert only_for_apps  # the registry declares app-only tools (the forms widget's submit_form among them)
    # Interleaved, so each answer after the first of its kind comes from the answer cache.
    bare_first = await _names(mcp_url, era, apps=False)
    apps_first = await _names(mcp_url, era, apps=True)
    bare_again = await _names(mcp_url, era, apps=False)
    apps_again = await _names(mcp_url, era, apps=True)
    assert bare_first == bare_again
    assert apps_first == apps_again
    assert only_for_apps <= set(apps_first)
    assert set(bare_first) == set(apps_first) - only_for_apps


async def test_a_2025_11_25_client_without_a_session_is_offered_every_tool(sessionless_url: str) -> None:
    # The server cannot know what such a client shows: it leaves the app-only tools in, and refuses no call.
    only_for_apps = await _app_only_names(sessionless_url)
    bare = await _names(sessionless_url, "legacy", apps=False)
    assert only_for_apps <= set(bare)


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("host", WIDGET_HOST_NAMES)
async def test_a_host_named_as_one_that_renders_mcp_apps_is_offered_and_may_call_app_only_tools(
    mcp_url: str, era: str, host: str
) -> None:
    only_for_apps = await _app_only_names(mcp_url)
    named = await _names(mcp_url, era, apps=False, name=host)
    other = await _names(mcp_url, era, apps=False, name="some-agent")
    assert only_for_apps <= set(named)
    assert not only_for_apps & set(other)
    question = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    async with _client(mcp_url, era, name=host) as mcp:
        asked = await mcp.call_tool("ask_question", {"question": question})
        key = (asked.meta or {}).get(ANSWER_KEY_META)
        form_id = structured(asked)["formId"]
        no_key = await mcp.call_tool("submit_form", {"formId": form_id, "data": {"city": "Oslo"}})
        answered = await mcp.call_tool("submit_form", {"formId": form_id, "data": {"city": "Oslo"}, "answerKey": key})
    # Its widget gets the form and its key, and the widget's answer is taken; a call without the key still is not.
    assert structured(asked)["type"] == "dgui_form"
    assert key
    assert error_of(no_key)["code"] == "answer_key_invalid"
    assert structured(answered)["data"] == {"city": "Oslo"}
