"""The limits every caller meets, through the endpoint as HTTP and Lambda requests reach it: the item budget
(`too_large`), live games and forms per principal, callers without identity counted per source address
(`quota_exceeded`), and the per-caller rate limit on requests that do work (`rate_limited`, with a retry hint).
Each on the in-memory store and on DynamoDB (moto, real boto3 calls)."""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import httpx
import pytest
from clocks import mid_window
from dynamodb_probe import client_for, moto_dynamodb
from form_keys import keep_key, keyed
from mcp_types import CallToolResult
from moto import mock_aws
from servers import serve
from storage_faults import FaultInjector, before
from tool_results import error_of, structured
from widget_mcp.settings import Settings
from widget_mcp.storage.documents import ENDED_COUNT_SECONDS, Document, DocumentStore
from widget_mcp.storage.dynamodb import DynamoDbDocumentStore
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.storage.table import create_state_table
from widget_mcp.toolkit.limits import CallLimiter, RateLimit
from widget_mcp.transport.lambda_events import parse_event
from widget_mcp.wiring import Core, build_app, build_core

HOST = "api.example.com"
HEADERS = {"host": HOST, "content-type": "application/json", "accept": "application/json"}
HOME, CAFE = "203.0.113.9", "198.51.100.7"
ALICE = {"openai/subject": "alice"}
FORM = {"type": "object", "properties": {"name": {"type": "string", "title": "Name"}}, "required": ["name"]}
TABLE = "limits-state"
EVENTS = Path(__file__).resolve().parents[1] / "events"


@pytest.fixture(params=["memory", "dynamodb"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Any]]:
    """("memory", None) or ("dynamodb", a boto3 client on moto holding the state table)."""
    if request.param == "memory":
        yield "memory", None
        return
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB"):
        monkeypatch.delenv(name, raising=False)
    with mock_aws():
        client = boto3.client("dynamodb", region_name="eu-west-1", aws_access_key_id="t", aws_secret_access_key="t")
        create_state_table(client, TABLE)
        yield "dynamodb", client


class Later:
    """The stores' clock: the time now, moved on by the tests (quota places free with it)."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.time() + self.ahead


@pytest.fixture
def later() -> Later:
    return Later()


def store_on(backend: tuple[str, Any], max_item_bytes: int, clock: Later | None = None) -> DocumentStore:
    kind, client = backend
    clock = clock or Later()
    if kind == "memory":
        return InMemoryDocumentStore(max_item_bytes=max_item_bytes, clock=clock)
    return DynamoDbDocumentStore(client, TABLE, max_item_bytes=max_item_bytes, clock=clock)


@pytest.fixture
def make_core(monkeypatch: pytest.MonkeyPatch, backend: tuple[str, Any], later: Later) -> Any:
    """A core whose limits are the defaults, but for the settings given; its store's clock is `later`."""
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    for name in ("RATE_LIMIT_CALLS", "QUOTA_LIVE_GAMES", "QUOTA_LIVE_FORMS"):  # the suite's shared-server values
        monkeypatch.delenv(name, raising=False)

    def make(**limits: Any) -> Core:
        settings = Settings(allowed_hosts=(HOST, "127.0.0.1:*"), **limits)
        core = build_core(settings, store=store_on(backend, settings.max_item_bytes, later))
        if core.runtime.limiter is not None:  # its window must not turn in the middle of a test
            limit = RateLimit(settings.rate_limit_calls, settings.rate_limit_window_seconds)
            core.runtime.limiter = CallLimiter(core.store, limit, mid_window(limit.window_seconds))
        return core

    return make


def stored_state(core: Core) -> list[tuple[str, str]]:
    """(partition, sort key) of every game and form stored: the `USER#` items, not the callers' counters."""
    store = core.store
    if isinstance(store, InMemoryDocumentStore):
        return sorted((f"USER#{owner}", f"{kind.upper()}#{doc_id}") for owner, kind, doc_id in store._items)
    assert isinstance(store, DynamoDbDocumentStore)
    items = store.client.scan(TableName=TABLE, ConsistentRead=True)["Items"]
    return sorted((i["pk"]["S"], i["sk"]["S"]) for i in items if i["pk"]["S"].startswith("USER#"))


class Caller:
    """Calls tools through the endpoint as one HTTP client would: from `peer`, with `headers` and `meta`; submit_form
    with the form's answer key, as the form's widget sends it."""

    def __init__(self, core: Core, peer: str | None = HOME, meta: dict[str, Any] | None = None, **headers: str):
        self.core, self.peer, self.meta, self.headers = core, peer, meta, headers
        self.last_headers: dict[str, str] = {}

    async def __call__(self, tool: str, arguments: dict[str, Any] | None = None) -> CallToolResult:
        arguments = keyed(arguments or {}) if tool == "submit_form" else arguments or {}
        params: dict[str, Any] = {"name": tool, "arguments": arguments}
        if self.meta is not None:
            params["_meta"] = self.meta
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).encode()
        reply = await self.core.endpoint.handle("POST", {**HEADERS, **self.headers}, body, peer=self.peer)
        assert reply.status == 200, reply.body
        self.last_headers = dict(reply.headers)
        return keep_key(CallToolResult.model_validate(json.loads(reply.body)["result"]))


def biggest_form() -> dict[str, Any]:
    """ask_question's arguments at every cap the tool declares: five steps, each with a 32 KB schema and a 16 KB
    uiSchema, and 15 KB of metadata (about 263 KB; before the item budget, a 259 KB item kept for a week)."""

    def schema(tag: str) -> dict[str, Any]:
        fields = {f"f{i:02d}": {"type": "string", "title": f"{tag} " + "x" * 270, "maxLength": 10} for i in range(100)}
        return {"type": "object", "properties": fields}

    def ui(tag: str) -> dict[str, Any]:
        return {f"f{i:02d}": {"ui:help": tag + "h" * 140} for i in range(100)}

    following: dict[str, Any] | None = None
    for step in range(4, 0, -1):
        this = {"title": f"step {step}", "schema": schema(f"s{step}"), "uiSchema": ui(f"s{step}")}
        following = {**this, "next": following} if following else this
    return {"question": schema("s0"), "uiSchema": ui("s0"), "metadata": {"note": "m" * 15_000, "next": following}}


async def test_an_anonymous_form_over_the_item_budget_is_refused_and_nothing_is_stored(make_core: Any) -> None:
    core = make_core()
    arguments = biggest_form()
    assert len(json.dumps(arguments)) > 250_000

    refused = await Caller(core)("ask_question", arguments)

    error = error_of(refused)
    assert error["code"] == "too_large"
    assert f"{core.settings.max_item_bytes:,}-byte limit" in error["message"]
    assert stored_state(core) == []
    # The caller's quota was not charged either: it can still ask as many forms as the quota allows.
    for _ in range(core.settings.quota_live_forms):
        assert not (await Caller(core)("ask_question", {"question": FORM})).is_error


async def test_answers_that_would_grow_a_form_past_the_budget_are_refused_and_the_form_stays_pending(
    make_core: Any,
) -> None:
    core = make_core(max_item_bytes=8 * 1024)
    caller = Caller(core, meta=ALICE)
    notes = {"type": "object", "properties": {"notes": {"type": "string", "title": "Notes " + "n" * 4_000}}}
    form_id = structured(await caller("ask_question", {"question": notes}))["formId"]

    refused = await caller("submit_form", {"formId": form_id, "data": {"notes": "a" * 6_000}})

    assert error_of(refused)["code"] == "too_large"
    assert structured(await caller("get_form_response", {"formId": form_id}))["type"] == "dgui_pending"
    answered = await caller("submit_form", {"formId": form_id, "data": {"notes": "short"}})
    assert structured(answered)["type"] == "dgui_response"


async def test_a_game_that_would_not_fit_the_item_budget_is_refused_and_not_stored(
    make_core: Any, backend: tuple[str, Any]
) -> None:
    core = make_core()
    tiny = build_core(core.settings, store=store_on(backend, 300))  # smaller than any game's item

    refused = await Caller(tiny)("chess_new_game")

    assert error_of(refused)["code"] == "too_large"
    assert stored_state(tiny) == []


@pytest.mark.parametrize(
    ("tool", "setting", "arguments"),
    [
        ("chess_new_game", "quota_live_games", {}),
        ("ask_question", "quota_live_forms", {"question": FORM}),
    ],
)
async def test_callers_without_identity_are_counted_per_source_address(
    make_core: Any, tool: str, setting: str, arguments: dict[str, Any]
) -> None:
    core = make_core(**{setting: 2})
    home = Caller(core, HOME)
    made = [structured(await home(tool, arguments)) for _ in range(2)]
    stored = stored_state(core)

    refused = await home(tool, arguments)
    # A new capability id per call, or a forged X-Forwarded-For, is still the same address.
    spoofed = await Caller(core, HOME, **{"x-forwarded-for": CAFE})(tool, arguments)

    assert len(made) == 2
    assert error_of(refused)["code"] == error_of(spoofed)["code"] == "quota_exceeded"
    assert error_of(refused)["limit"] == 2
    assert stored_state(core) == stored
    assert not (await Caller(core, CAFE)(tool, arguments)).is_error  # another address
    assert not (await Caller(core, HOME, meta=ALICE)(tool, arguments)).is_error  # a user: counted as that user


async def test_an_identified_user_keeps_its_quota_wherever_it_calls_from(make_core: Any) -> None:
    core = make_core(quota_live_games=2)
    await Caller(core, HOME, meta=ALICE)("chess_new_game")
    await Caller(core, CAFE, meta=ALICE)("chess_new_game")

    refused = await Caller(core, "192.0.2.44", meta=ALICE)("chess_new_game")

    assert error_of(refused)["code"] == "quota_exceeded"
    assert not (await Caller(core, HOME, meta={"openai/subject": "bob"})("chess_new_game")).is_error


async def test_an_ipv6_caller_is_counted_per_64_bit_network(make_core: Any) -> None:
    core = make_core(quota_live_games=1)
    await Caller(core, "2001:db8:7:1::1")("chess_new_game")

    refused = await Caller(core, "2001:db8:7:1:ffff::2")("chess_new_game")

    assert error_of(refused)["code"] == "quota_exceeded"
    assert not (await Caller(core, "2001:db8:7:2::1")("chess_new_game")).is_error


async def test_behind_a_trusted_proxy_the_address_it_forwarded_is_counted(make_core: Any) -> None:
    core = make_core(quota_live_games=1, trusted_proxy_hops=1)
    proxy = "10.0.0.5"
    first = Caller(core, proxy, **{"x-forwarded-for": f"{CAFE}, {HOME}"})  # the caller wrote CAFE; the proxy HOME
    await first("chess_new_game")

    refused = await Caller(core, proxy, **{"x-forwarded-for": HOME})("chess_new_game")

    assert error_of(refused)["code"] == "quota_exceeded"
    assert not (await Caller(core, proxy, **{"x-forwarded-for": f"{HOME}, {CAFE}"})("chess_new_game")).is_error


@pytest.mark.parametrize("sample", ["apigw-http-v2.json", "apigw-rest-v1.json"])
async def test_through_api_gateway_events_the_source_ip_of_the_request_context_is_counted(
    make_core: Any, sample: str
) -> None:
    core = make_core(quota_live_games=1)
    template = json.loads((EVENTS / sample).read_text())

    async def new_game(source_ip: str) -> CallToolResult:
        event = json.loads(json.dumps(template))
        event["headers"] = {**HEADERS, "x-forwarded-for": "192.0.2.99"}  # API Gateway's, but not trusted here
        event.pop("multiValueHeaders", None)
        context = event["requestContext"]
        (context["http"] if "http" in context else context["identity"])["sourceIp"] = source_ip
        event["body"] = json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "chess_new_game"}}
        )
        request = parse_event(event)
        reply = await core.endpoint.handle(
            request.method, request.headers, request.body, request.request_id, request.source_ip
        )
        return CallToolResult.model_validate(json.loads(reply.body)["result"])

    assert not (await new_game(HOME)).is_error
    assert error_of(await new_game(HOME))["code"] == "quota_exceeded"
    assert not (await new_game(CAFE)).is_error


async def test_over_http_the_connections_address_is_counted_and_forwarded_headers_are_not(make_core: Any) -> None:
    core = make_core(quota_live_games=1)
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "chess_new_game"}}
    with serve(build_app(core)) as base:
        async with httpx.AsyncClient() as http:

            async def new_game(forwarded: str) -> CallToolResult:
                headers = {"accept": "application/json", "x-forwarded-for": forwarded}
                reply = await http.post(f"{base}/mcp", json=message, headers=headers)
                return CallToolResult.model_validate(reply.json()["result"])

            assert not (await new_game(HOME)).is_error
            refused = await new_game(CAFE)

    assert error_of(refused)["code"] == "quota_exceeded"


async def test_past_its_rate_limit_a_caller_is_told_when_to_retry_and_nothing_is_read_or_written(
    make_core: Any,
) -> None:
    core = make_core(rate_limit_calls=3, rate_limit_window_seconds=60)
    home = Caller(core, HOME)
    game_id = structured(await home("chess_new_game"))["gameId"]
    await home("chess_move", {"gameId": game_id, "move": "e4"})
    await home("chess_move", {"gameId": game_id, "move": "e5"})
    stored = stored_state(core)

    refused = await home("chess_move", {"gameId": game_id, "move": "Nf3"})

    error = error_of(refused)
    assert (error["code"], error["retryable"]) == ("rate_limited", True)
    assert 1 <= error["retryAfter"] <= 60
    assert home.last_headers["retry-after"] == str(error["retryAfter"])
    assert f"Try again in {error['retryAfter']} s" in error["message"]
    assert stored_state(core) == stored
    assert error_of(await home("chess_show_game", {"gameId": game_id}))["code"] == "rate_limited"


async def test_the_rate_limit_counts_every_tool_call_before_its_work_and_only_the_callers_own(
    make_core: Any,
) -> None:
    core = make_core(rate_limit_calls=1)
    home = Caller(core, HOME)
    await home("chess_new_game")
    assert error_of(await home("chess_list_games"))["code"] == "rate_limited"

    # A tool that keeps no state is counted too: its work (and its arguments' parsing) is CPU a caller spends.
    shown = await home("display_demo", {"message": "x" * 10_000})
    listed = await core.endpoint.handle("POST", HEADERS, b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}', peer=HOME)

    assert error_of(shown)["code"] == "rate_limited"
    assert "retry-after" in dict(home.last_headers)
    assert listed.status == 200  # lists come from the answer cache: no work to count
    assert "tools" in json.loads(listed.body)["result"]
    assert not (await Caller(core, CAFE)("chess_new_game")).is_error
    assert not (await Caller(core, HOME, meta=ALICE)("chess_new_game")).is_error


async def test_with_the_rate_limit_off_no_call_is_counted(make_core: Any) -> None:
    core = make_core(rate_limit_calls=0)
    home = Caller(core, HOME, meta=ALICE)
    for _ in range(5):
        assert not (await home("chess_list_games")).is_error
    if isinstance(core.store, DynamoDbDocumentStore):
        items = core.store.client.scan(TableName=TABLE)["Items"]
        assert not [i for i in items if i["sk"]["S"].startswith("RATE#")]


@pytest.fixture
def served_dynamodb(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A fresh state table on a moto server on loopback, which real threads may race on (as `make dev` serves)."""
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    for name in ("RATE_LIMIT_CALLS", "QUOTA_LIVE_GAMES", "QUOTA_LIVE_FORMS"):
        monkeypatch.delenv(name, raising=False)
    table = f"{TABLE}-{secrets.token_hex(4)}"  # moto keeps its tables per process
    with moto_dynamodb(table) as url:
        yield table, url


async def test_concurrent_creates_from_one_address_all_land_while_the_quota_has_room(
    served_dynamodb: tuple[str, str],
) -> None:
    table, url = served_dynamodb
    settings = Settings(allowed_hosts=(HOST,), rate_limit_calls=0)
    core = build_core(settings, concurrent=True, store=DynamoDbDocumentStore(client_for(url), table))
    home, gate = Caller(core, HOME), asyncio.Semaphore(10)

    async def create() -> CallToolResult:
        async with gate:
            return await home("chess_new_game")

    results = await asyncio.gather(*(create() for _ in range(40)))

    assert [r.content for r in results if r.is_error] == []
    assert len({structured(r)["gameId"] for r in results}) == 40


@pytest.mark.parametrize(("tool", "arguments"), [("chess_new_game", {}), ("ask_question", {"question": FORM})])
async def test_a_create_that_keeps_losing_the_race_for_its_quota_is_rate_limited_with_a_retry_hint(
    served_dynamodb: tuple[str, str], tool: str, arguments: dict[str, Any]
) -> None:
    table, url = served_dynamodb
    store = DynamoDbDocumentStore(client_for(url), table, sleep=lambda _: None)
    rival = DynamoDbDocumentStore(client_for(url), table)
    core = build_core(Settings(allowed_hosts=(HOST,)), store=store)
    kind = "game" if tool == "chess_new_game" else "form"
    rivals = iter(range(1000))

    def rival_lands() -> None:
        # Another create for the same address lands between each read of the ledger and its transaction.
        n = next(rivals)
        doc = Document(kind, f"rival{n}", {}, 1, 1, 1, 2**40).counted_for(f"source:{HOME}")
        rival.create(f"capability:rival{n}", doc, quota=1000)

    FaultInjector(store.client).plan("TransactWriteItems", before(rival_lands))
    home = Caller(core, HOME)

    refused = await home(tool, arguments)

    error = error_of(refused)
    assert (error["code"], error["retryable"]) == ("rate_limited", True)
    assert home.last_headers["retry-after"] == str(error["retryAfter"]) != "0"
    assert "could not reach its storage" not in error["message"]
    assert f"Try again in {error['retryAfter']} s" in error["message"]
    if tool == "ask_question":  # the forms tools' errors keep DGUI's own error message
        assert structured(refused)["type"] == "dgui_error"
    items = store.client.scan(TableName=table, ConsistentRead=True)["Items"]
    assert [i for i in items if i["pk"]["S"].startswith("USER#") and "rival" not in i["sk"]["S"]] == []  # none of ours


FOOLS_MATE = ["f3", "e5", "g4", "Qh4#"]


@pytest.mark.parametrize("ending", ["resignation", "checkmate"])
async def test_a_game_that_ends_gives_its_place_back_an_hour_later(make_core: Any, later: Later, ending: str) -> None:
    core = make_core(quota_live_games=2)
    home = Caller(core, HOME)  # without identity: the address's allowance, shared by every caller behind it
    first, _ = [structured(await home("chess_new_game"))["gameId"] for _ in range(2)]
    full = error_of(await home("chess_new_game"))
    assert full["code"] == "quota_exceeded"
    assert "Finishing or resigning one of them frees its place an hour later" in full["message"]

    if ending == "resignation":
        over = structured(await home("chess_resign", {"gameId": first}))
    else:
        for move in FOOLS_MATE:
            over = structured(await home("chess_move", {"gameId": first, "move": move}))
    assert over["status"] == ("resigned" if ending == "resignation" else "checkmate")

    assert error_of(await home("chess_new_game"))["code"] == "quota_exceeded"  # held for the hour
    later.ahead += ENDED_COUNT_SECONDS
    assert not (await home("chess_new_game")).is_error
    assert error_of(await home("chess_new_game"))["code"] == "quota_exceeded"
    assert structured(await home("chess_show_game", {"gameId": first}))["status"] == over["status"]  # still kept


async def test_an_answered_form_gives_its_place_back_an_hour_later_and_a_half_answered_one_does_not(
    make_core: Any, later: Later
) -> None:
    core = make_core(quota_live_forms=2)
    home = Caller(core, HOME)
    two_steps = {"question": FORM, "metadata": {"next": {"title": "Step 2", "schema": FORM}}}
    single = structured(await home("ask_question", {"question": FORM}))["formId"]
    stepped = structured(await home("ask_question", two_steps))["formId"]
    full = error_of(await home("ask_question", {"question": FORM}))
    assert full["code"] == "quota_exceeded"
    assert "Answering one of them frees its place an hour later" in full["message"]

    assert not (await home("submit_form", {"formId": stepped, "data": {"name": "Ada"}})).is_error
    assert error_of(await home("ask_question", {"question": FORM}))["code"] == "quota_exceeded"  # a step still open
    assert not (await home("submit_form", {"formId": single, "data": {"name": "Ada"}})).is_error

    assert error_of(await home("ask_question", {"question": FORM}))["code"] == "quota_exceeded"  # held for the hour
    later.ahead += ENDED_COUNT_SECONDS
    assert not (await home("ask_question", {"question": FORM})).is_error
    assert error_of(await home("ask_question", {"question": FORM}))["code"] == "quota_exceeded"
    assert structured(await home("get_form_response", {"formId": single}))["type"] == "dgui_response"  # still kept
