"""The tests a new app that keeps state starts with (scaffold_state_templates.py fills them in): its service on
the in-memory store, its tools through the official MCP client, and racing calls on moto with real boto3."""

from __future__ import annotations

UNIT_TEST = '''"""The $title app's service on the in-memory store (the same contract as DynamoDB's):
version-checked edits, atomic likes, notes kept per owner, a quota of live notes."""

from __future__ import annotations

import pytest
from widget_mcp import InMemoryDocumentStore, QuotaExceeded, StateOwner
from widget_mcp.apps.$name.repository import Notes
from widget_mcp.apps.$name.service import EditConflict, EmptyNote, NoteNotFound, NoteService

ADA, BOB = StateOwner("openai:ada"), StateOwner("openai:bob")


@pytest.fixture
def service() -> NoteService:
    return NoteService(Notes(InMemoryDocumentStore()), quota=2, clock=lambda: 1_800_000_000)


def test_an_edit_over_the_version_seen_lands_and_moves_the_version(service: NoteService) -> None:
    note = service.add(ADA, "  Buy  oat milk ")
    edited = service.edit(ADA, note.note_id, "Buy soy milk", note.version)
    assert (note.text, note.version) == ("Buy oat milk", 1)
    assert (edited.text, edited.version) == ("Buy soy milk", 2)
    assert service.show(ADA, note.note_id) == edited


def test_an_edit_over_a_stale_version_is_a_conflict_carrying_the_current_one_and_writes_nothing(
    service: NoteService,
) -> None:
    note = service.add(ADA, "Buy oat milk")
    liked = service.like(ADA, note.note_id)  # a like moves the version too
    with pytest.raises(EditConflict) as caught:
        service.edit(ADA, note.note_id, "Buy soy milk", note.version)
    assert caught.value.details == {"version": liked.version}
    assert service.show(ADA, note.note_id) == liked


def test_likes_add_up_without_a_version(service: NoteService) -> None:
    note = service.add(ADA, "Lunch at noon")
    for _ in range(3):
        service.like(ADA, note.note_id)
    assert service.show(ADA, note.note_id).likes == 3


def test_another_owners_note_is_not_found_and_takes_no_like(service: NoteService) -> None:
    note = service.add(ADA, "Lunch at noon")
    with pytest.raises(NoteNotFound):
        service.show(BOB, note.note_id)
    with pytest.raises(NoteNotFound):
        service.like(BOB, note.note_id)
    assert service.show(ADA, note.note_id).likes == 0


def test_past_the_quota_of_live_notes_an_add_is_refused(service: NoteService) -> None:
    service.add(ADA, "one")
    service.add(ADA, "two")
    with pytest.raises(QuotaExceeded):
        service.add(ADA, "three")
    assert service.add(BOB, "three").text == "three"


def test_an_empty_note_is_refused_and_an_edit_to_nothing_writes_nothing(service: NoteService) -> None:
    with pytest.raises(EmptyNote):
        service.add(ADA, " \\n ")
    note = service.add(ADA, "Lunch at noon")
    with pytest.raises(EmptyNote):
        service.edit(ADA, note.note_id, " \\t ", note.version)
    assert service.show(ADA, note.note_id) == note
'''

FUNCTIONAL_TEST = '''"""The $title app's tools through the official MCP client, in memory: each user's notes,
version-checked edits, and the live-notes quota read from ${NAME}_QUOTA_LIVE_ITEMS."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from mcp_types import CallToolResult
from widget_mcp.testing import memory_client

ADA = {"openai/subject": "v1/ada"}
BOB = {"openai/subject": "v1/bob"}


@pytest.fixture
def client() -> Client:
    return memory_client()  # a server of its own for each test, its state in memory


def code_of(result: CallToolResult) -> Any:
    assert result.is_error, result
    assert result.meta is not None
    return result.meta["error"]["code"]


async def test_a_note_is_added_liked_edited_and_shown(client: Client) -> None:
    async with client:
        added = await client.call_tool("${name}_add_note", {"text": "Buy oat milk"}, meta=ADA)
        note_id = added.structured_content["note_id"]  # type: ignore[index]
        await client.call_tool("${name}_like_note", {"note_id": note_id}, meta=ADA)
        edited = await client.call_tool(
            "${name}_edit_note",
            {"note_id": note_id, "text": "Buy soy milk", "version": 2},
            meta=ADA,
        )
        shown = await client.call_tool("${name}_show_note", {"note_id": note_id}, meta=ADA)

    expected = {"note_id": note_id, "text": "Buy soy milk", "likes": 1, "version": 3}
    assert edited.structured_content == expected
    assert shown.structured_content == expected


async def test_an_edit_over_a_stale_version_is_a_conflict_and_the_note_is_kept(client: Client) -> None:
    async with client:
        added = await client.call_tool("${name}_add_note", {"text": "Buy oat milk"}, meta=ADA)
        note_id = added.structured_content["note_id"]  # type: ignore[index]
        await client.call_tool(
            "${name}_edit_note",
            {"note_id": note_id, "text": "Buy rice", "version": 1},
            meta=ADA,
        )
        stale = await client.call_tool(
            "${name}_edit_note",
            {"note_id": note_id, "text": "Buy soy milk", "version": 1},
            meta=ADA,
        )
        shown = await client.call_tool("${name}_show_note", {"note_id": note_id}, meta=ADA)

    assert code_of(stale) == "conflict"
    assert shown.structured_content == {"note_id": note_id, "text": "Buy rice", "likes": 0, "version": 2}


async def test_another_users_note_is_not_found(client: Client) -> None:
    async with client:
        added = await client.call_tool("${name}_add_note", {"text": "Buy oat milk"}, meta=ADA)
        note_id = added.structured_content["note_id"]  # type: ignore[index]
        seen = await client.call_tool("${name}_show_note", {"note_id": note_id}, meta=BOB)
        liked = await client.call_tool("${name}_like_note", {"note_id": note_id}, meta=BOB)

    assert [code_of(seen), code_of(liked)] == ["note_not_found", "note_not_found"]


async def test_past_the_apps_quota_setting_an_add_is_quota_exceeded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("${NAME}_QUOTA_LIVE_ITEMS", "1")
    client = memory_client()
    async with client:
        first = await client.call_tool("${name}_add_note", {"text": "one"}, meta=ADA)
        second = await client.call_tool("${name}_add_note", {"text": "two"}, meta=ADA)

    assert not first.is_error
    assert code_of(second) == "quota_exceeded"
    assert second.meta is not None
    assert second.meta["error"]["limit"] == 1
'''

RACE_TEST = '''"""The $title app's service on DynamoDB (moto, real boto3), with racing calls: every like lands
with no retry, and of edits racing from one version exactly one lands and the others conflict."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest
from dynamodb_probe import client_for, moto_dynamodb
from widget_mcp import StateOwner
from widget_mcp.apps.$name.repository import Notes
from widget_mcp.apps.$name.service import EditConflict, Note, NoteService
from widget_mcp.storage.dynamodb import DynamoDbDocumentStore

TABLE = "${name}-race"
ADA = StateOwner("openai:ada")


@pytest.fixture(scope="module")
def service() -> Iterator[NoteService]:
    with moto_dynamodb(TABLE) as url:
        yield NoteService(Notes(DynamoDbDocumentStore(client_for(url), TABLE)), quota=10)


def racing(count: int, work: Callable[[int], Note]) -> list[Note | Exception]:
    """`work(i)` in `count` threads released together; each one's note or exception."""
    start, outcomes = threading.Barrier(count), [Exception("did not run")] * count

    def run(i: int) -> None:
        start.wait()
        try:
            outcomes[i] = work(i)
        except Exception as exc:  # kept, to assert on
            outcomes[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return list(outcomes)


def test_twenty_racing_likes_all_land_with_no_retry(service: NoteService) -> None:
    note = service.add(ADA, "Lunch at noon")
    outcomes = racing(20, lambda _: service.like(ADA, note.note_id))
    assert [o for o in outcomes if not isinstance(o, Note)] == []
    assert service.show(ADA, note.note_id).likes == 20


def test_of_edits_racing_from_one_version_exactly_one_lands_and_the_others_conflict(service: NoteService) -> None:
    note = service.add(ADA, "Lunch at noon")
    outcomes = racing(8, lambda i: service.edit(ADA, note.note_id, f"Lunch at {i + 1} pm", note.version))
    landed = [o for o in outcomes if isinstance(o, Note)]
    assert len(landed) == 1
    assert all(isinstance(o, EditConflict) for o in outcomes if not isinstance(o, Note)), outcomes
    assert service.show(ADA, note.note_id) == landed[0]
'''
