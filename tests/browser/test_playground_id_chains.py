"""The playground follows a declared chain of ids: with the guides' apps served (guide_apps.py), calling
team_vote (as ChatGPT, which names its user: the space tools need one) makes a space, then a poll in that space, then
votes, each id made once and shown in the form."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from browser_support import DevServer, ToolCalls
from guide_apps import add_guide_apps
from playwright.sync_api import Page, expect
from repo_copy import ROOT, copy_repo
from widget_mcp.local.process import local_server


@pytest.fixture(scope="module")
def guide_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    copy = copy_repo(tmp_path_factory.mktemp("guide-playground"))
    add_guide_apps(copy)
    dist = ROOT / "widget_bundles/dist"
    if not (dist / "manifest.json").is_file():
        pytest.fail("widget bundles are not built: run `make widgets`", pytrace=False)
    (copy / "widget_bundles/dist").symlink_to(dist)  # the bundles as built here, playground included
    with local_server("guide-playground-state", root=copy) as server:
        yield DevServer(server.base)


def test_calling_a_tool_at_the_end_of_a_chain_makes_each_maker_first_and_shares_the_space(
    page: Page, guide_server: DevServer
) -> None:
    calls = ToolCalls(page)
    page.goto(f"{guide_server.base}/playground?host=chatgpt")  # the space tools need the user ChatGPT names
    page.locator('[data-testid="tool-select"]').select_option("team_vote")
    expect(page.locator('[data-testid="args"]')).to_have_attribute("data-tool", "team_vote")
    assert calls.names() == []  # picking a tool calls nothing

    page.locator('[data-testid="call-tool"]').click()

    expect(page.locator('[data-testid="chat-assistant"][data-tool="team_vote"]')).to_have_attribute(
        "data-outcome", "ok"
    )
    assert calls.names() == ["create_space", "create_team_poll", "team_vote"]
    made_in, voted = calls.sent[1]["arguments"], calls.sent[2]["arguments"]
    assert made_in["space_id"] == voted["space_id"]  # the poll is made in the space the vote goes to
    args = json.loads(page.locator('[data-testid="tool-args"]').input_value())
    assert (args["space_id"], args["poll_id"]) == (voted["space_id"], voted["poll_id"])
    expect(page.locator('[data-testid="chat-made-id"]')).to_have_count(2)
