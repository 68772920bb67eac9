"""The Team List app's tools through the official MCP client, in memory: a list shared by the users its owner adds
by member id, each item checked over the version seen, and nothing of a list reachable by anyone else."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from mcp_types import CallToolResult
from widget_mcp.server import build_server
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.wiring import build_core

ADA = {"openai/subject": "v1/ada"}
BOB = {"openai/subject": "v1/bob"}
CAROL = {"openai/subject": "v1/carol"}


@pytest.fixture
def client(settings: Settings) -> Client:
    return Client(build_server(build_core(settings, store=InMemoryDocumentStore()).runtime), mode="legacy")


def code_of(result: CallToolResult) -> Any:
    assert result.is_error, result
    assert result.meta is not None
    return result.meta["error"]["code"]


def out(result: CallToolResult) -> Any:
    assert not result.is_error, result
    return result.structured_content


async def shared_list(client: Client) -> str:
    """Ada's list, with Bob added by the member id the app told him."""
    bob = out(await client.call_tool("team_list_my_member_id", {}, meta=BOB))["member_id"]
    made = out(await client.call_tool("team_list_create_list", {"name": "Kitchen"}, meta=ADA))
    shared = await client.call_tool("team_list_add_member", {"list_id": made["list_id"], "member": bob}, meta=ADA)
    assert out(shared)["members"] == [bob]
    return str(made["list_id"])


async def test_members_add_and_check_items_of_one_list(client: Client) -> None:
    async with client:
        list_id = await shared_list(client)
        milk = out(await client.call_tool("team_list_add_item", {"list_id": list_id, "text": "Oat milk"}, meta=BOB))
        check = {"list_id": list_id, "item_id": milk["item_id"], "version": milk["version"]}
        checked = out(await client.call_tool("team_list_check_item", check, meta=ADA))
        shown = out(await client.call_tool("team_list_items", {"list_id": list_id}, meta=BOB))

    assert (checked["checked"], checked["checked_by"], checked["version"]) == (True, "openai:v1/ada", 2)
    assert shown == {"list_id": list_id, "name": "Kitchen", "items": [checked]}


async def test_a_stale_check_is_a_conflict_that_says_what_the_item_is_now(client: Client) -> None:
    async with client:
        list_id = await shared_list(client)
        milk = out(await client.call_tool("team_list_add_item", {"list_id": list_id, "text": "Oat milk"}, meta=ADA))
        check = {"list_id": list_id, "item_id": milk["item_id"], "version": 1}
        await client.call_tool("team_list_check_item", check, meta=BOB)
        stale = await client.call_tool("team_list_check_item", {**check, "checked": False}, meta=ADA)

    assert code_of(stale) == "conflict"
    assert stale.meta is not None
    assert (stale.meta["error"]["version"], stale.meta["error"]["checked"]) == (2, True)  # details sit beside the code


@pytest.mark.parametrize("stranger", [CAROL, None], ids=["another user", "a caller without identity"])
async def test_a_stranger_gets_the_same_not_found_for_a_list_as_for_one_that_never_existed(
    client: Client, stranger: dict[str, str] | None
) -> None:
    async with client:
        list_id = await shared_list(client)
        milk = out(await client.call_tool("team_list_add_item", {"list_id": list_id, "text": "Oat milk"}, meta=ADA))
        check = {"list_id": list_id, "item_id": milk["item_id"], "version": 1}
        answers = [
            await client.call_tool("team_list_items", {"list_id": list_id}, meta=stranger),
            await client.call_tool("team_list_add_item", {"list_id": list_id, "text": "Crisps"}, meta=stranger),
            await client.call_tool("team_list_check_item", check, meta=stranger),
            await client.call_tool("team_list_items", {"list_id": "never-made"}, meta=stranger),
        ]
        kept = out(await client.call_tool("team_list_items", {"list_id": list_id}, meta=ADA))

    assert [code_of(answer) for answer in answers] == ["space_not_found"] * 4
    assert kept["items"] == [milk]


async def test_a_removed_member_is_refused_from_the_next_call_on(client: Client) -> None:
    async with client:
        list_id = await shared_list(client)
        bob = out(await client.call_tool("team_list_my_member_id", {}, meta=BOB))["member_id"]
        await client.call_tool("team_list_remove_member", {"list_id": list_id, "member": bob}, meta=ADA)
        refused = await client.call_tool("team_list_items", {"list_id": list_id}, meta=BOB)

    assert code_of(refused) == "space_not_found"


async def test_past_the_apps_quota_setting_an_add_is_quota_exceeded(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEAM_LIST_QUOTA_LIVE_ITEMS", "2")
    client = Client(build_server(build_core(settings, store=InMemoryDocumentStore()).runtime), mode="legacy")
    async with client:
        list_id = await shared_list(client)
        added = [
            await client.call_tool("team_list_add_item", {"list_id": list_id, "text": text}, meta=ADA)
            for text in ("Oat milk", "Bread", "Crisps")
        ]
        shown = out(await client.call_tool("team_list_items", {"list_id": list_id}, meta=ADA))

    assert [a.is_error for a in added] == [False, False, True]
    assert code_of(added[2]) == "quota_exceeded"
    assert len(shown["items"]) == 2
