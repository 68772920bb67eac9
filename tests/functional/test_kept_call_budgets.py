"""What a 2025-11-25 client can make the server keep while a call waits for answers (resumption.py), and what that
costs, through the real apps on the buffered endpoint as Lambda drives it: the kept call holds only the `_meta` its
rerun reads, each caller keeps a bounded number of waiting calls, an answer is capped at the answer budget and
counted against the caller's rate limit before it is read, a batch carries one answer, and a call whose run outlived
its lease is never run again."""

from __future__ import annotations

import json
from typing import Any

import pytest
from widget_mcp.settings import Settings
from widget_mcp.storage.documents import VersionConflict
from widget_mcp.transport.kept_budgets import MAX_ANSWER_BYTES
from widget_mcp.transport.resumption import STREAM, Streams
from widget_mcp.wiring import Core, build_core

from tests.functional.test_resumable_streams import (
    HEADERS,
    HOST,
    TRAVELLER,
    Clock,
    ReadCountingStore,
    Runs,
    Wire,
    events,
    messages,
)
from tests.trip_book import trip_endpoint, trip_settings

QUOTA = Settings.model_fields["quota_waiting_calls"].default
FLAT = {"type": "object", "properties": {"city": {"type": "string", "maxLength": 40}}, "required": ["city"]}
PEER = "203.0.113.9"


def _forms_core(store: ReadCountingStore, **limits: Any) -> Core:
    limits.setdefault("rate_limit_calls", 1000)
    limits.setdefault("quota_waiting_calls", Settings.model_fields["quota_waiting_calls"].default)  # the default's
    settings = Settings(allowed_hosts=(HOST,), **limits)
    return build_core(settings, store=store)


class FormsWire(Wire):
    """A 2025-11-25 client without widgets that elicits, calling the forms app's ask_question from one address."""

    async def post(self, message: dict[str, Any], session: str | None) -> Any:
        headers = {**HEADERS, **({"mcp-session-id": session} if session else {})}
        return await self.endpoint.handle("POST", headers, json.dumps(message).encode(), peer=PEER)

    async def resume(self, session: str | None, event_id: str) -> Any:
        headers = {"host": HOST, "accept": "text/event-stream", "mcp-protocol-version": "2025-11-25"}
        headers |= {"last-event-id": event_id} | ({"mcp-session-id": session} if session else {})
        return await self.endpoint.handle("GET", headers, b"", peer=PEER)

    async def ask(self, session: str, rid: int = 7, meta: dict[str, Any] | None = None) -> Any:
        params: dict[str, Any] = {"name": "ask_question", "arguments": {"question": FLAT}}
        if meta is not None:
            params["_meta"] = meta
        return await self.post({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}, session)


def _kept(store: ReadCountingStore) -> list[Any]:
    return [doc for (_, kind, _), doc in store._items.items() if kind == STREAM]


async def test_a_kept_call_keeps_only_the_meta_its_rerun_reads() -> None:
    store = ReadCountingStore()
    wire = FormsWire(_forms_core(store).endpoint)
    padding = {f"pad{i}": "x" * 6_000 for i in range(10)}
    reply = await wire.ask(await wire.session(), meta={**padding, "progressToken": "p-1"})
    assert reply.status == 200
    [request] = messages(reply)
    assert request["method"] == "elicitation/create"
    [kept] = _kept(store)
    assert kept.body["call"]["_meta"] == {"progressToken": "p-1"}
    assert len(json.dumps(kept.body)) < 8_000  # the arguments and what was asked, not the padding


async def test_a_call_too_large_to_keep_while_it_waits_is_refused_as_too_large_and_nothing_is_kept() -> None:
    store = ReadCountingStore(max_item_bytes=4_096)
    wire = FormsWire(_forms_core(store).endpoint)
    wide = {f"field{i}": {"type": "string", "title": "t" * 100} for i in range(40)}
    params = {"name": "ask_question", "arguments": {"question": {"type": "object", "properties": wide}}}
    reply = await wire.post({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": params}, await wire.session())
    result = result_of(reply)
    assert result["isError"] is True
    error = result["_meta"]["error"]
    assert error["code"] == "too_large"
    assert error["budget"] == 4_096
    assert "smaller" in error["message"]
    assert not _kept(store)  # nothing half-written
    assert not [ledger for ledger in store._ledgers if ledger[1] == STREAM]  # nor counted


async def test_a_caller_keeps_a_bounded_number_of_waiting_calls_and_the_next_is_quota_exceeded_with_nothing_kept() -> (
    None
):
    store = ReadCountingStore()
    wire = FormsWire(_forms_core(store).endpoint)
    session = await wire.session()
    for rid in range(QUOTA):
        assert messages(await wire.ask(session, rid=rid))[0]["method"] == "elicitation/create"
    refused = result_of(await wire.ask(session, rid=999))
    assert refused["isError"] is True
    assert refused["_meta"]["error"]["code"] == "quota_exceeded"
    assert refused["_meta"]["error"]["limit"] == QUOTA
    assert len(_kept(store)) == QUOTA
    # A new session from the same address is the same caller.
    other = result_of(await wire.ask(await wire.session(), rid=1000))
    assert other["_meta"]["error"]["code"] == "quota_exceeded"


async def test_an_answer_over_the_answer_budget_is_kept_as_the_error_saying_so_and_ends_the_call_with_it() -> None:
    store = ReadCountingStore()
    wire = FormsWire(_forms_core(store).endpoint)
    session = await wire.session()
    suspended = await wire.ask(session)
    [request] = messages(suspended)
    huge = {"action": "accept", "content": {"city": "x" * (MAX_ANSWER_BYTES + 1)}}
    assert (await wire.answer(session, request["id"], huge)).status == 202
    kept = [doc for (_, kind, _), doc in store._items.items() if kind.startswith("stream_answer")]
    assert [doc.body for doc in kept] == [
        {
            "error": {
                "code": -32600,
                "message": f"The answer is larger than this server keeps ({MAX_ANSWER_BYTES // 1024} KB)",
            }
        }
    ]
    [response] = messages(await wire.resume(session, events(suspended)[0]["id"]))
    assert "larger than this server keeps" in response["error"]["message"]


async def test_an_answer_past_the_callers_rate_limit_is_refused_429_before_anything_is_read_or_kept() -> None:
    store = ReadCountingStore()
    wire = FormsWire(_forms_core(store, rate_limit_calls=2).endpoint)
    session = await wire.session()
    suspended = await wire.ask(session)  # the call: 1 of 2
    [request] = messages(suspended)
    assert (await wire.answer(session, request["id"], {"action": "decline"})).status == 202  # 2 of 2
    reads = store.reads
    refused = await wire.answer(session, request["id"], {"action": "decline"})
    assert refused.status == 429
    assert int(dict(refused.headers)["retry-after"]) >= 1
    assert json.loads(refused.body)["error"]["data"]["error"] == "rate_limited"
    assert store.reads == reads  # refused before the kept call was read


async def test_a_batch_holding_more_than_one_response_is_refused_and_nothing_is_kept() -> None:
    store = ReadCountingStore()
    core = _forms_core(store)
    wire = FormsWire(core.endpoint)
    session = await wire.session()
    [request] = messages(await wire.ask(session))
    answer = {"jsonrpc": "2.0", "id": request["id"], "result": {"action": "decline"}}
    headers = {**HEADERS, "mcp-protocol-version": "2025-03-26", "mcp-session-id": session}
    reply = await core.endpoint.handle("POST", headers, json.dumps([answer, answer]).encode(), peer=PEER)
    assert reply.status == 400
    assert "one response" in json.loads(reply.body)["error"]["message"]
    assert not [kind for (_, kind, _) in store._items if kind.startswith("stream_answer")]


@pytest.fixture
def slow_holder() -> tuple[Wire, Streams, Runs, Clock, ReadCountingStore]:
    clock, runs = Clock(), Runs()
    store = ReadCountingStore(clock=clock)
    settings = trip_settings(resumable_streams=True, task_work_seconds=20)
    endpoint = trip_endpoint(settings, store=store, observer=runs, clock=clock)
    assert endpoint._streams is not None
    return Wire(endpoint), endpoint._streams, runs, clock, store


async def test_a_call_whose_run_outlives_its_lease_is_never_run_again_and_ends_once_with_an_error(
    slow_holder: tuple[Wire, Streams, Runs, Clock, ReadCountingStore],
) -> None:
    wire, streams, runs, clock, store = slow_holder
    session = await wire.session()
    suspended = await wire.call(session)
    [request] = messages(suspended)
    await wire.answer(session, request["id"], TRAVELLER)
    event_id = events(suspended)[0]["id"]
    [(owner, doc)] = [(o, d) for (o, kind, _), d in store._items.items() if kind == STREAM]
    held = streams.claim(doc)  # a GET claimed it and is running it, slowly
    assert held is not None
    ran = runs.count

    clock.now += 19  # within its lease: the others wait
    assert not messages(await wire.resume(session, event_id))
    clock.now += 2  # past it
    [ended] = messages(await wire.resume(session, event_id))
    [again] = messages(await wire.resume(session, event_id))
    assert runs.count == ran  # never run a second time
    assert ended == again
    assert "did not finish in time" in ended["error"]["message"]
    with pytest.raises(VersionConflict):  # the slow holder's own end does not overwrite it
        streams.finish(held, b"late")
    assert store.get(owner, STREAM, doc.doc_id).body["reply"] != "late"  # type: ignore[union-attr]


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per form the forms service checks (its real check runs)."""
    from widget_mcp.apps.forms.service import FormService

    counted: list[int] = []
    real = FormService.check

    def check(self: FormService, *args: Any) -> Any:
        counted.append(1)
        return real(self, *args)

    monkeypatch.setattr(FormService, "check", check)
    return counted


async def test_the_native_form_admits_its_caller_before_checking_the_form_and_checks_it_once_a_round(
    checks: list[int],
) -> None:
    store = ReadCountingStore()
    wire = FormsWire(_forms_core(store, rate_limit_calls=3).endpoint)
    session = await wire.session()
    suspended = await wire.ask(session)  # 1 of 3
    [request] = messages(suspended)
    assert len(checks) == 1
    await wire.answer(session, request["id"], {"action": "accept", "content": {"city": "Oslo"}})  # 2 of 3
    [response] = messages(await wire.resume(session, events(suspended)[0]["id"]))  # the rerun: 3 of 3
    assert response["result"]["_meta"]["dgui_response"]["data"] == {"city": "Oslo"}
    assert len(checks) == 2  # once in each round, where it was checked twice in the answering one
    refused = result_of(await wire.ask(session, rid=8))
    assert refused["_meta"]["error"]["code"] == "rate_limited"
    assert len(checks) == 2  # past the limit, the form costs no check


def result_of(reply: Any) -> dict[str, Any]:
    """A call's result, from its JSON reply or the last message of its event stream."""
    if dict(reply.headers)["content-type"] == "text/event-stream":
        result: dict[str, Any] = messages(reply)[-1]["result"]
        return result
    return dict(json.loads(reply.body)["result"])


async def test_a_form_elicitation_cannot_carry_in_an_eliciting_host_is_the_widgets_form_checked_once(
    checks: list[int],
) -> None:
    wire = FormsWire(_forms_core(ReadCountingStore()).endpoint)
    wide = {**FLAT, "anyOf": [True] * 50}  # elicitation carries no `anyOf`
    params = {"name": "ask_question", "arguments": {"question": wide}}
    reply = await wire.post({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params}, await wire.session())
    result = result_of(reply)
    assert result["isError"] is False
    assert result["structuredContent"]["type"] == "dgui_form"
    assert result["structuredContent"]["formId"]
    assert len(checks) == 1


@pytest.mark.parametrize(
    "responses",
    [
        {f"k{i}": {"action": "decline"} for i in range(1_000)},
        {"form": {"action": "accept", "content": {"city": "x" * (MAX_ANSWER_BYTES + 1)}}},
    ],
    ids=["a thousand answers", "one answer over the budget"],
)
@pytest.mark.parametrize("method", ["tools/call", "prompts/get"])
async def test_more_input_responses_than_a_round_asks_are_refused_before_the_caller_is_even_counted(
    responses: dict[str, Any], method: str
) -> None:
    store = ReadCountingStore()
    core = _forms_core(store, rate_limit_calls=1)
    envelope = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    params = {"name": "ask_question", "arguments": {"question": FLAT}, "inputResponses": responses, "_meta": envelope}
    headers = {**HEADERS, "mcp-protocol-version": "2026-07-28", "mcp-method": method, "mcp-name": "ask_question"}
    body = json.dumps({"jsonrpc": "2.0", "id": 3, "method": method, "params": params}).encode()
    reply = await core.endpoint.handle("POST", headers, body, peer=PEER)
    error = json.loads(reply.body)["error"]
    assert error["code"] == -32602
    assert "inputResponses" in error["message"]
    assert store._counters == {}  # nothing validated, counted or read
    assert store.reads == 0


async def test_a_rerun_past_the_callers_rate_limit_leaves_the_call_waiting_unwritten_and_counts_once_when_it_runs() -> (
    None
):
    store = ReadCountingStore()
    core = _forms_core(store, rate_limit_calls=2)
    limiter, clock = core.runtime.limiter, Clock()
    assert limiter is not None
    limiter._clock = clock  # the window's clock, to pass its end
    wire = FormsWire(core.endpoint)
    session = await wire.session()
    suspended = await wire.ask(session)  # 1 of 2
    [request] = messages(suspended)
    await wire.answer(session, request["id"], {"action": "accept", "content": {"city": "Oslo"}})  # 2 of 2
    [before] = _kept(store)
    polled = await wire.resume(session, events(suspended)[0]["id"])
    assert not messages(polled)  # a poll: come back later
    [after] = _kept(store)
    assert (after.version, after.body["state"]) == (before.version, "waiting")  # no claim written

    clock.now += 60  # the next window: the GET is 1 of 2, its rerun not counted again
    [response] = messages(await wire.resume(session, events(suspended)[0]["id"]))
    assert response["result"]["_meta"]["dgui_response"]["data"] == {"city": "Oslo"}
    assert messages(await wire.ask(session, rid=8))[0]["method"] == "elicitation/create"  # 2 of 2
