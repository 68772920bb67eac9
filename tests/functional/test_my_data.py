"""`export_my_data` and `erase_my_data` across every registered app, on the in-memory store and on DynamoDB (moto, real
boto3): state is made through each app's own tools (their declared examples), then exported and erased for one user;
what another user keeps is untouched, and nothing of the erased user's partition is left, whatever kinds an app
declared (an app that keeps a kind it does not declare fails here)."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from tool_results import call_as
from widget_mcp.apps import registry
from widget_mcp.apps.books import AppContext, load_books
from widget_mcp.apps.my_data.service import SPACES
from widget_mcp.server import build_server
from widget_mcp.settings import Settings
from widget_mcp.storage.documents import DocumentStore
from widget_mcp.storage.dynamodb import DynamoDbDocumentStore
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit.tools import ToolSpec
from widget_mcp.wiring import Core, build_core

TABLE = "my-data-state"
ALICE = {"openai/subject": "v1/alice"}
BOB = {"openai/subject": "v1/bob"}
OWN = "widget_mcp.apps.my_data"


def makers() -> list[ToolSpec]:
    """Every other app's tools that may write, whose declared examples make a whole call (a call that needs an id
    from an earlier result writes nothing new)."""
    books = load_books(AppContext(Settings(), InMemoryDocumentStore()), tuple(a for a in registry.APPS if a != OWN))
    found = []
    for spec in (spec for book in books for spec in book.tools.values()):
        schema = spec.input_model.model_json_schema()
        examples = {n: p["examples"][0] for n, p in schema.get("properties", {}).items() if p.get("examples")}
        if not spec.read_only and set(schema.get("required", [])) <= examples.keys():
            found.append(spec)
    return found


def example_call(spec: ToolSpec) -> dict[str, Any]:
    properties = spec.input_model.model_json_schema().get("properties", {})
    return {name: prop["examples"][0] for name, prop in properties.items() if prop.get("examples")}


@pytest.fixture
def core(settings: Settings, store: DocumentStore) -> Core:
    return build_core(settings, store=store)


def partition(store: DocumentStore, meta: dict[str, str]) -> list[str]:
    """The sort key (`KIND#id`) of every item in this user's partition, read under the port (on DynamoDB, a scan of
    the table)."""
    owner = "openai:" + meta["openai/subject"]
    if isinstance(store, InMemoryDocumentStore):
        return sorted(f"{kind.upper()}#{doc_id}" for (o, kind, doc_id) in store._items if o == owner)
    assert isinstance(store, DynamoDbDocumentStore)
    items = store.client.scan(TableName=TABLE)["Items"]
    return sorted(i["sk"]["S"] for i in items if i["pk"]["S"] == f"USER#{owner}")


async def make_state(core: Core, meta: dict[str, str]) -> None:
    for spec in makers():
        result = await call_as(core, spec.name, example_call(spec), meta)
        if not meta and result.is_error and result.meta["error"]["code"] == "identity_required":
            continue  # state that needs an identity (a space's, docs/shared-state.md): none is made without one
        assert not result.is_error, (spec.name, result)


def test_some_app_makes_state_from_its_examples_alone() -> None:
    assert makers(), "no tool of the registry's apps writes state from its declared examples"


async def test_erasing_deletes_every_item_the_caller_made_in_every_app_and_another_users_are_untouched(
    core: Core, store: DocumentStore
) -> None:
    await make_state(core, ALICE)
    await make_state(core, BOB)
    bobs = partition(store, BOB)
    assert partition(store, ALICE)
    assert bobs

    before = _documents(store)
    erased = await call_as(core, "erase_my_data", {}, ALICE)

    assert not erased.is_error, erased
    assert erased.structured_content["complete"] is True
    # What it counts is what went: her own items, and the spaces she owned with their documents (docs/shared-state.md),
    # whatever partition they live in.
    assert sum(erased.structured_content["erased"].values()) == len(before - _documents(store))
    assert partition(store, ALICE) == []
    assert partition(store, BOB) == bobs
    again = await call_as(core, "erase_my_data", {}, ALICE)
    assert again.structured_content == {"erased": {}, "complete": True}


async def test_an_erased_users_places_in_its_quotas_are_free_at_once(settings: Settings, store: DocumentStore) -> None:
    # Every live-item quota at its least, whichever apps keep what (Settings' quota_live_* fields).
    least = {name: 1 for name in Settings.model_fields if name.startswith("quota_live_")}
    core = build_core(settings.model_copy(update=least), store=store)
    await make_state(core, ALICE)
    full = [await call_as(core, spec.name, example_call(spec), ALICE) for spec in makers()]
    assert "quota_exceeded" in [r.meta["error"]["code"] for r in full if r.is_error]

    assert not (await call_as(core, "erase_my_data", {}, ALICE)).is_error

    await make_state(core, ALICE)  # the quota ledgers forgot what was erased


async def test_the_export_carries_every_item_of_the_caller_and_none_of_another_user(
    core: Core, store: DocumentStore
) -> None:
    await make_state(core, ALICE)
    await make_state(core, BOB)

    exported = await call_as(core, "export_my_data", {}, ALICE)

    assert not exported.is_error, exported
    items = exported.structured_content["items"]
    assert exported.structured_content["complete"] is True
    assert sorted(f"{i['kind'].upper()}#{i['id']}" for i in items) == partition(store, ALICE)
    assert not set(partition(store, BOB)) & {f"{i['kind'].upper()}#{i['id']}" for i in items}
    assert {i["app"] for i in items} <= {entry.rsplit(".", 1)[-1] for entry in registry.APPS} | {SPACES}


async def test_a_caller_without_identity_is_told_nothing_here_is_its_own_and_nothing_changes(
    core: Core, store: DocumentStore
) -> None:
    await make_state(core, ALICE)
    await make_state(core, {})  # by capability
    before = (partition(store, ALICE), _everything(store))

    answers = [await call_as(core, tool, {}, {}) for tool in ("export_my_data", "erase_my_data")]

    assert [a.structured_content for a in answers] == [
        {"items": [], "complete": True, "nextCursor": None},
        {"erased": {}, "complete": True},
    ]
    assert all("no user identity" in a.content[0].text for a in answers)
    assert (partition(store, ALICE), _everything(store)) == before


async def test_with_anonymous_state_refused_a_caller_without_identity_gets_identity_required(
    settings: Settings, store: DocumentStore
) -> None:
    core = build_core(settings.model_copy(update={"anonymous_state": "refuse"}), store=store)

    answers = [await call_as(core, tool, {}, {}) for tool in ("export_my_data", "erase_my_data")]

    assert [a.meta["error"]["code"] for a in answers] == ["identity_required"] * 2


def _documents(store: DocumentStore) -> set[tuple[str, str]]:
    """Every document in the store, in any partition (users', capabilities', spaces'), as (partition, KIND#id)."""
    if isinstance(store, InMemoryDocumentStore):
        return {(o, f"{kind.upper()}#{doc_id}") for (o, kind, doc_id) in store._items}
    assert isinstance(store, DynamoDbDocumentStore)
    return {(i["pk"]["S"], i["sk"]["S"]) for i in store.client.scan(TableName=TABLE)["Items"]}


def _everything(store: DocumentStore) -> int:
    """How many documents the store holds in all, in every user's and capability's partition."""
    if isinstance(store, InMemoryDocumentStore):
        return len(store._items)
    assert isinstance(store, DynamoDbDocumentStore)
    return sum(i["pk"]["S"].startswith("USER#") for i in store.client.scan(TableName=TABLE)["Items"])


async def test_erase_is_declared_destructive_and_export_read_only_both_offered_to_the_model(core: Core) -> None:
    async with Client(build_server(core.runtime), mode="legacy") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}

    erase, export = tools["erase_my_data"], tools["export_my_data"]
    assert erase.annotations is not None
    assert export.annotations is not None
    assert (erase.annotations.destructive_hint, erase.annotations.read_only_hint) == (True, False)
    assert (export.annotations.destructive_hint, export.annotations.read_only_hint) == (False, True)
    assert all((t.meta or {}).get("openai/visibility", "public") == "public" for t in (erase, export))


def test_an_export_stops_at_its_byte_bound_newest_first_and_resumes_after_the_last_item_it_carried() -> None:
    from widget_mcp.apps.my_data.service import EXPORT_BYTES, MyData
    from widget_mcp.storage.documents import Document

    store = InMemoryDocumentStore()
    big = "x" * 60_000
    for n in range(30):  # 1.8 MB of bodies
        store.create("openai:alice", Document("note", f"{n:03d}", {"text": big}, 1, 1, 1, 2**40))

    my_data = MyData(store, lambda: {"notes": ("note",)})
    items, resume = my_data.export("openai:alice")
    rest, end = my_data.export("openai:alice", resume)

    assert resume is not None
    assert 0 < len(items) < 30
    assert sum(len(i.body["text"]) for i in items) <= EXPORT_BYTES
    assert [i.doc_id for i in items] == [f"{n:03d}" for n in range(29, 29 - len(items), -1)]
    assert (resume.kind, resume.after) == ("note", items[-1].doc_id)
    assert [i.doc_id for i in rest][:1] == [f"{29 - len(items):03d}"]  # the next one, none twice
    assert end is None or len(items) + len(rest) < 30
