"""The "Keep state" guide (docs/state.md): its team poll app, written to a package from the guide's code blocks as a
user pastes them, listed in the registry and served through the official MCP client, on the in-memory store and on
DynamoDB (moto, real boto3). Both stores answer alike; racing votes all count; another user's poll is not found."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from readme_snippets import assert_guide_apps_pass_ruff, section_python
from tool_results import call_as, error_of
from widget_mcp.apps import registry
from widget_mcp.settings import Settings
from widget_mcp.storage.documents import DocumentStore
from widget_mcp.wiring import Core, build_core

TABLE = "poll-state"
ALICE = {"openai/subject": "v1/alice"}
BOB = {"openai/subject": "v1/bob"}
PACKAGE = "readme_team_poll"


def guide_code() -> str:
    """The python blocks of the "Keep state" section, in order: the app's `__init__.py`."""
    return "\n\n".join(section_python("Keep state"))


@pytest.fixture
def core(settings: Settings, store: DocumentStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Core:
    package = tmp_path / PACKAGE
    package.mkdir()
    (package / "__init__.py").write_text(guide_code())
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "APPS", (*registry.APPS, PACKAGE))  # listed in the registry, as the guide says
    return build_core(settings, concurrent=True, store=store)


def error_code(result: Any) -> str:
    return str(error_of(result)["code"])


async def test_a_poll_is_created_voted_on_and_counted_as_the_guide_shows(core: Core) -> None:
    created = await call_as(core, "create_poll", {"question": "Lunch?", "options": ["Pizza", "Sushi", "Salad"]}, ALICE)
    assert not created.is_error, created
    poll_id = created.structured_content["poll_id"]

    for option in (1, 1, 0):
        assert not (await call_as(core, "vote", {"poll_id": poll_id, "option": option}, ALICE)).is_error
    results = await call_as(core, "poll_results", {"poll_id": poll_id}, ALICE)

    assert results.structured_content == {
        "poll_id": poll_id,
        "question": "Lunch?",
        "results": [
            {"option": "Pizza", "votes": 1},
            {"option": "Sushi", "votes": 2},
            {"option": "Salad", "votes": 0},
        ],
        "total": 3,
    }


async def test_the_guides_refusals_are_error_results_with_their_codes(core: Core) -> None:
    created = await call_as(core, "create_poll", {"question": "Lunch?", "options": ["Pizza", "Sushi"]}, ALICE)
    poll_id = created.structured_content["poll_id"]

    past_the_options = await call_as(core, "vote", {"poll_id": poll_id, "option": 2}, ALICE)
    one_option = await call_as(core, "create_poll", {"question": "Lunch?", "options": ["Pizza"]}, ALICE)
    unknown = await call_as(core, "poll_results", {"poll_id": "0" * 22}, ALICE)

    assert [error_code(r) for r in (past_the_options, one_option, unknown)] == [
        "no_such_option",
        "invalid_arguments",
        "poll_not_found",
    ]


@pytest.fixture
def quota(monkeypatch: pytest.MonkeyPatch) -> int:
    """The live polls a creator may keep, set as the guide says (TEAM_POLL_QUOTA_LIVE_ITEMS) before the app is built."""
    monkeypatch.setenv("TEAM_POLL_QUOTA_LIVE_ITEMS", "3")
    return 3


async def test_a_creator_past_the_quota_its_setting_gives_is_refused_and_nothing_is_stored(
    quota: int, core: Core
) -> None:
    for _ in range(quota):
        assert not (await call_as(core, "create_poll", {"question": "Q?", "options": ["a", "b"]}, BOB)).is_error

    refused = await call_as(core, "create_poll", {"question": "Q?", "options": ["a", "b"]}, BOB)

    assert error_code(refused) == "quota_exceeded"
    assert refused.meta["error"]["limit"] == quota
    assert not (await call_as(core, "create_poll", {"question": "Q?", "options": ["a", "b"]}, ALICE)).is_error


async def test_another_users_poll_id_is_not_found_and_takes_no_vote(core: Core) -> None:
    created = await call_as(core, "create_poll", {"question": "Lunch?", "options": ["Pizza", "Sushi"]}, ALICE)
    poll_id = created.structured_content["poll_id"]

    seen = await call_as(core, "poll_results", {"poll_id": poll_id}, BOB)
    voted = await call_as(core, "vote", {"poll_id": poll_id, "option": 0}, BOB)
    anonymous = await call_as(core, "vote", {"poll_id": poll_id, "option": 0}, {})

    assert [error_code(r) for r in (seen, voted, anonymous)] == ["poll_not_found"] * 3
    assert (await call_as(core, "poll_results", {"poll_id": poll_id}, ALICE)).structured_content["total"] == 0


async def test_a_poll_made_without_sign_in_is_reached_by_its_capability_id_alone(core: Core) -> None:
    created = await call_as(core, "create_poll", {"question": "Lunch?", "options": ["Pizza", "Sushi"]}, {})
    poll_id = created.structured_content["poll_id"]

    voted = await call_as(core, "vote", {"poll_id": poll_id, "option": 1}, {})
    from_a_user = await call_as(core, "poll_results", {"poll_id": poll_id}, ALICE)

    assert len(poll_id) == 24
    assert voted.structured_content["total"] == 1
    assert error_code(from_a_user) == "poll_not_found"


async def test_twenty_racing_votes_are_all_counted_with_no_retry(core: Core) -> None:
    created = await call_as(core, "create_poll", {"question": "Lunch?", "options": ["Pizza", "Sushi"]}, ALICE)
    poll_id = created.structured_content["poll_id"]
    start = threading.Barrier(20)
    answers: list[Any] = []

    def voter(option: int) -> None:
        start.wait()
        answers.append(asyncio.run(core.runtime.call("vote", {"poll_id": poll_id, "option": option}, ALICE)))

    threads = [threading.Thread(target=voter, args=(i % 2,)) for i in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert [answer["isError"] for answer in answers] == [False] * 20
    results = (await call_as(core, "poll_results", {"poll_id": poll_id}, ALICE)).structured_content
    assert [r["votes"] for r in results["results"]] == [10, 10]
    assert results["total"] == 20


def test_the_guides_app_passes_ruff_where_the_guide_puts_it(tmp_path: Path) -> None:
    assert_guide_apps_pass_ruff(tmp_path, {"team_poll": guide_code()}, "widget_mcp", "Keep state")
