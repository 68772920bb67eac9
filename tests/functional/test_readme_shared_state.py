"""The "Shared state" guide (docs/shared-state.md): its team-space package (written from the guide's code blocks,
beside the "Keep state" poll app it reuses), listed in the registry and served through the official MCP client on the
in-memory store and on DynamoDB (moto, real boto3). Members share a space's polls; a stranger, a caller without
identity (identity_required) and a removed member are refused; nothing of one space is reachable from another."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from readme_snippets import assert_guide_apps_pass_ruff, section_python
from tool_results import call_as, error_of, structured
from widget_mcp.apps import registry
from widget_mcp.settings import Settings
from widget_mcp.storage.documents import DocumentStore
from widget_mcp.wiring import Core, build_core

TABLE = "space-state"
ALICE = {"openai/subject": "v1/alice"}
BOB = {"openai/subject": "v1/bob"}
CAROL = {"openai/subject": "v1/carol"}
POLL_PACKAGE, SPACE_PACKAGE = "readme_team_poll_for_spaces", "readme_team_space"
GUIDE_POLL_MODULE = "widget_mcp.apps.team_poll"


def guide_code(heading: str) -> str:
    """The python blocks of a guide's section, in order: its app's `__init__.py` ("Keep state": the poll app; "Shared
    state": the team space)."""
    return "\n\n".join(section_python(heading))


@pytest.fixture
def core(settings: Settings, store: DocumentStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Core:
    for package, code in (
        (POLL_PACKAGE, guide_code("Keep state")),
        (SPACE_PACKAGE, guide_code("Shared state")),
    ):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text(code.replace(GUIDE_POLL_MODULE, POLL_PACKAGE))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "APPS", (*registry.APPS, POLL_PACKAGE, SPACE_PACKAGE))
    return build_core(settings, concurrent=True, store=store)


async def ok(core: Core, tool: str, arguments: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    result = await call_as(core, tool, arguments, meta)
    assert not result.is_error, result
    return structured(result)


async def code_of(core: Core, tool: str, arguments: dict[str, Any], meta: dict[str, Any]) -> str:
    return str(error_of(await call_as(core, tool, arguments, meta))["code"])


async def team(core: Core) -> tuple[str, str]:
    """Alice's space with Bob in it, by the member id Bob's call answered, and a poll in it: (space, poll)."""
    space = (await ok(core, "create_space", {"name": "Design team"}, ALICE))["space_id"]
    bob = (await ok(core, "my_member_id", {}, BOB))["member_id"]
    await ok(core, "add_member", {"space_id": space, "member": bob}, ALICE)
    created = {"space_id": space, "question": "Lunch?", "options": ["Pizza", "Sushi"]}
    return space, (await ok(core, "create_team_poll", created, ALICE))["poll_id"]


async def test_members_vote_in_their_spaces_poll_and_both_see_every_vote(core: Core) -> None:
    space, poll = await team(core)

    await ok(core, "team_vote", {"space_id": space, "poll_id": poll, "option": 1}, BOB)
    await ok(core, "team_vote", {"space_id": space, "poll_id": poll, "option": 0}, ALICE)

    for member in (ALICE, BOB):
        results = await ok(core, "team_poll_results", {"space_id": space, "poll_id": poll}, member)
        assert [r["votes"] for r in results["results"]] == [1, 1]


async def test_a_stranger_and_a_caller_without_identity_are_refused_and_change_nothing(core: Core) -> None:
    space, poll = await team(core)
    vote = {"space_id": space, "poll_id": poll, "option": 0}

    refused = [await code_of(core, "team_vote", vote, CAROL)]
    refused.append(await code_of(core, "add_member", {"space_id": space, "member": "openai:v1/carol"}, CAROL))
    # the tools declare needs_identity: a caller without identity learns nothing of the space, before any read
    no_id = [await code_of(core, tool, args, {}) for tool, args in (("team_vote", vote), ("my_member_id", {}))]

    assert refused == ["space_not_found"] * 2
    assert no_id == ["identity_required"] * 2
    assert (await ok(core, "team_poll_results", {"space_id": space, "poll_id": poll}, ALICE))["total"] == 0


async def test_a_removed_member_is_refused_and_its_earlier_vote_stays(core: Core) -> None:
    space, poll = await team(core)
    vote = {"space_id": space, "poll_id": poll, "option": 0}
    await ok(core, "team_vote", vote, BOB)
    bob = (await ok(core, "my_member_id", {}, BOB))["member_id"]

    await ok(core, "remove_member", {"space_id": space, "member": bob}, ALICE)

    assert await code_of(core, "team_vote", vote, BOB) == "space_not_found"
    assert await code_of(core, "team_poll_results", {"space_id": space, "poll_id": poll}, BOB) == "space_not_found"
    assert (await ok(core, "team_poll_results", {"space_id": space, "poll_id": poll}, ALICE))["total"] == 1


async def test_a_member_cannot_add_others_and_a_poll_of_one_space_is_not_found_in_another(core: Core) -> None:
    space, poll = await team(core)
    carols = (await ok(core, "create_space", {"name": "Elsewhere"}, CAROL))["space_id"]

    by_member = await code_of(core, "add_member", {"space_id": space, "member": "openai:v1/carol"}, BOB)
    elsewhere = await code_of(core, "team_poll_results", {"space_id": carols, "poll_id": poll}, CAROL)
    own_partition = await code_of(core, "poll_results", {"poll_id": poll}, ALICE)  # the guide's tool: Alice's own

    assert [by_member, elsewhere, own_partition] == ["not_space_owner", "poll_not_found", "poll_not_found"]


def test_the_guides_space_app_passes_ruff_where_the_guide_puts_it(tmp_path: Path) -> None:
    apps = {"team_poll": guide_code("Keep state"), "team_space": guide_code("Shared state")}
    assert_guide_apps_pass_ruff(tmp_path, apps, "widget_mcp/apps/team_space", "Shared state")
