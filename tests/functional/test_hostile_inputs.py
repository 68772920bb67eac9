"""The corpus of hostile inputs (tests/hostile/) through the official MCP client and through the HTTP endpoint
(the one Lambda and uvicorn serve): every entry gets its expected outcome, a refused request writes nothing (a
form or game stays as it was) and no step stores more than the entry says it may. How long each takes is measured
by `python -m bench.security`, never asserted."""

from __future__ import annotations

import json

import pytest
from hostile_corpus import Entry, Step, call, client_for, endpoint_for, load, names, outcome_of, request
from mcp import Client
from tool_results import error_of
from widget_mcp.server import build_server
from widget_mcp.settings import Settings
from widget_mcp.storage.documents import Document
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.wiring import build_core

# The outcomes of a request that was served, and so may store what it is entitled to.
SERVED = ("ok", "http_202")


class CountingStore(InMemoryDocumentStore):
    """The in-memory store, counting the writes that landed and the bytes of their bodies."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0
        self.bytes = 0

    def create(self, owner: str, doc: Document, *, quota: int | None = None) -> None:
        super().create(owner, doc, quota=quota)
        self._count(doc)

    def replace(self, owner: str, doc: Document, expected_version: int) -> None:
        super().replace(owner, doc, expected_version)
        self._count(doc)

    def _count(self, doc: Document) -> None:
        self.writes += 1
        self.bytes += len(json.dumps(doc.body, default=str))


def _stored_within_bounds(
    entry: Entry, step: Step, outcome: str, store: CountingStore, before: tuple[int, int]
) -> None:
    writes, stored = store.writes - before[0], store.bytes - before[1]
    if step.stores_at_most is not None:
        assert stored <= step.stores_at_most, f"{entry.name}: {step.tool} stored {stored:,} bytes"
    elif outcome not in SERVED and not outcome.startswith("stream_"):
        assert writes == 0, f"{entry.name}: a refused {step.tool} wrote to the store"


@pytest.fixture(params=names("client"))
def client_entry(request: pytest.FixtureRequest) -> Entry:
    return load(request.param)


@pytest.fixture(params=names("endpoint"))
def endpoint_entry(request: pytest.FixtureRequest) -> Entry:
    return load(request.param)


async def test_each_hostile_input_through_the_mcp_client_gets_its_outcome_and_a_refusal_stores_nothing(
    settings: Settings, client_entry: Entry
) -> None:
    entry = client_entry
    store = CountingStore()
    client = client_for(entry, settings, store)
    ids: dict[str, str] = {}
    async with client:
        for step in entry.steps:
            for _ in range(step.repeat):
                before = store.writes, store.bytes
                if step.method != "tools/call":
                    outcome, message = await request(client, step)

                    assert outcome == step.expected("client"), (entry.name, step.tool, message)
                    assert outcome == "ok" or message, entry.name
                    _stored_within_bounds(entry, step, outcome, store, before)
                    continue
                result = await call(client, step, ids)

                assert outcome_of(result) == step.expected("client"), (entry.name, step.tool, result.content)
                if step.expected("client") != "ok":
                    assert error_of(result)["code"] == step.expected("client")
                    assert error_of(result)["message"], entry.name
                _stored_within_bounds(entry, step, outcome_of(result), store, before)


async def test_each_hostile_input_through_the_http_endpoint_gets_its_outcome_and_a_refusal_stores_nothing(
    settings: Settings, endpoint_entry: Entry
) -> None:
    entry = endpoint_entry
    store = CountingStore()
    replay = await endpoint_for(entry, settings, store)
    for step in entry.steps:
        for _ in range(step.repeat):
            before = store.writes, store.bytes
            reply = await replay.send(step)
            outcome, message = replay.read(step, reply)

            assert reply.status < 500, (entry.name, step.tool, reply.body[:300])
            assert outcome == step.expected("endpoint"), (entry.name, step.tool, message)
            assert outcome in SERVED or outcome.startswith("stream_") or message, entry.name
            _stored_within_bounds(entry, step, outcome, store, before)


async def test_the_forms_tools_count_steps_against_the_budgets_in_settings(settings: Settings) -> None:
    form = {"type": "object", "properties": {"a": {"allOf": [{"minLength": i} for i in range(150)]}}}
    tight = settings.model_copy(update={"forms_max_check_steps": 1_000, "forms_max_value_steps": 100})
    for budget, expected in ((settings, "ok"), (tight, "too_complex")):
        client = Client(build_server(build_core(budget, store=InMemoryDocumentStore()).runtime), mode="legacy")
        async with client:
            result = await client.call_tool("ask_question", {"question": form}, meta={"openai/subject": "s"})

        assert outcome_of(result) == expected
