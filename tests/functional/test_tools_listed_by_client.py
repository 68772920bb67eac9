"""Which tools each client is offered, through the official client over HTTP in both eras: a client known not to
show widgets (2026-07-28 capabilities, or a 2025-11-25 session that keeps them) is not offered the app-only tools,
one that shows widgets is, and the cached answer of one is never the other's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp import Client
from mcp.client import advertise
from servers import serve
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit.client_surface import app_only
from widget_mcp.wiring import build_app, build_core

ERAS = ["2026-07-28", "legacy"]
APPS = advertise("io.modelcontextprotocol/ui", {"mimeTypes": ["text/html;profile=mcp-app"]})


def _url(settings: Settings) -> Iterator[str]:
    with serve(build_app(build_core(settings, concurrent=True, store=InMemoryDocumentStore()))) as url:
        yield f"{url}/mcp"


@pytest.fixture
def mcp_url(settings: Settings) -> Iterator[str]:
    yield from _url(settings)


@pytest.fixture
def sessionless_url(settings: Settings) -> Iterator[str]:
    yield from _url(settings.model_copy(update={"resumable_streams": False}))


async def _names(url: str, era: str, *, apps: bool) -> list[str]:
    async with Client(url, mode=era, extensions=[APPS] if apps else []) as mcp:  # type: ignore[arg-type]
        return [tool.name for tool in (await mcp.list_tools()).tools]


async def _app_only_names(url: str) -> set[str]:
    async with Client(url, mode="2026-07-28", extensions=[APPS]) as mcp:
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
