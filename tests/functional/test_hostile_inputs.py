"""The corpus of hostile inputs (tests/hostile/) through the official MCP client and through the HTTP endpoint
(the one Lambda and uvicorn serve): every entry gets its expected outcome, and a refused call writes nothing (a
form or game stays as it was). How long each takes is measured by `python -m bench.security`, never asserted."""

from __future__ import annotations

import pytest
from hostile_corpus import (
    Entry,
    call,
    client_for,
    endpoint_for,
    load,
    names,
    outcome_of,
    read_reply,
    request,
    request_body,
)
from mcp import Client
from tool_results import error_of
from widget_mcp.server import build_server
from widget_mcp.settings import Settings
from widget_mcp.storage.documents import Document
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.wiring import build_core


class CountingStore(InMemoryDocumentStore):
    """The in-memory store, counting the writes that landed."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def create(self, owner: str, doc: Document, *, quota: int | None = None) -> None:
        super().create(owner, doc, quota=quota)
        self.writes += 1

    def replace(self, owner: str, doc: Document, expected_version: int) -> None:
        super().replace(owner, doc, expected_version)
        self.writes += 1


@pytest.fixture(params=names())
def entry(request: pytest.FixtureRequest) -> Entry:
    return load(request.param)


async def test_each_hostile_input_through_the_mcp_client_gets_its_outcome_and_a_refusal_stores_nothing(
    settings: Settings, entry: Entry
) -> None:
    store = CountingStore()
    client = client_for(entry, settings, store)
    ids: dict[str, str] = {}
    async with client:
        for step in entry.steps:
            before = store.writes
            if step.method != "tools/call":
                outcome, message = await request(client, step)

                assert outcome == step.expected("client"), (entry.name, step.tool, message)
                assert outcome == "ok" or message, entry.name
                assert outcome == "ok" or store.writes == before, f"{entry.name}: a refused {step.tool} wrote"
                continue
            result = await call(client, step, ids)

            assert outcome_of(result) == step.expected("client"), (entry.name, step.tool, result.content)
            if step.expected("client") != "ok":
                assert error_of(result)["code"] == step.expected("client")
                assert error_of(result)["message"], entry.name
                assert store.writes == before, f"{entry.name}: a refused {step.tool} wrote to the store"


async def test_each_hostile_input_through_the_http_endpoint_gets_its_outcome_and_a_refusal_stores_nothing(
    settings: Settings, entry: Entry
) -> None:
    store = CountingStore()
    endpoint, headers = await endpoint_for(entry, settings, store)
    ids: dict[str, str] = {}
    for step in entry.steps:
        before = store.writes
        reply = await endpoint.handle("POST", headers, request_body(step, ids))
        outcome, message = read_reply(step, reply.status, reply.body, ids)

        assert reply.status < 500, (entry.name, step.tool, reply.body[:300])
        assert outcome == step.expected("endpoint"), (entry.name, step.tool, message)
        if outcome != "ok":
            assert message, entry.name
            assert store.writes == before, f"{entry.name}: a refused {step.tool} wrote to the store"


async def test_the_forms_tools_count_steps_against_the_budgets_in_settings(settings: Settings) -> None:
    form = {"type": "object", "properties": {"a": {"allOf": [{"minLength": i} for i in range(150)]}}}
    tight = settings.model_copy(update={"forms_max_check_steps": 1_000, "forms_max_value_steps": 100})
    for budget, expected in ((settings, "ok"), (tight, "too_complex")):
        client = Client(build_server(build_core(budget, store=InMemoryDocumentStore()).runtime), mode="legacy")
        async with client:
            result = await client.call_tool("ask_question", {"question": form}, meta={"openai/subject": "s"})

        assert outcome_of(result) == expected
