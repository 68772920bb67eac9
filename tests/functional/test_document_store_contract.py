"""One contract, two stores: the in-memory fake and the DynamoDB adapter (on moto, through real boto3 calls).

Besides documents: the item budget, the quota ledger (per holder, under races from real threads, expiry and release)
and bounded counters."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import boto3
import pytest
from botocore.config import Config
from dynamodb_probe import CallLog, client_for, moto_dynamodb
from moto import mock_aws
from storage_faults import FaultInjector, before
from widget_mcp.storage.counters import COUNT_LIMIT, MAX_COUNTERS, add_room
from widget_mcp.storage.documents import (
    COUNT_SLACK_SECONDS,
    ENDED_COUNT_SECONDS,
    GET_MANY_KEYS,
    AlreadyExists,
    BadCounter,
    CountOutOfRange,
    Document,
    DocumentStore,
    ItemOverBudget,
    QuotaFull,
    StoreBusy,
    StoreUnavailable,
    TooManyCounters,
    VersionConflict,
    time_ordered_id,
)
from widget_mcp.storage.dynamodb import DynamoDbDocumentStore
from widget_mcp.storage.items import item_size, to_item
from widget_mcp.storage.ledger import (
    LEDGER_ATTEMPTS,
    LEDGER_BACKOFF_CAP_SECONDS,
    LEDGER_BACKOFF_SECONDS,
    ledger_backoff,
)
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.storage.table import create_state_table

TABLE = "contract-state"
BUDGET = 2_000


class Clock:
    """The stores' clock, moved by the tests (quota entries expire with it)."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def dynamodb_client(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB"):
        monkeypatch.delenv(name, raising=False)
    with mock_aws():
        client = boto3.client("dynamodb", region_name="eu-west-1", aws_access_key_id="t", aws_secret_access_key="t")
        create_state_table(client, TABLE)
        yield client


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=["memory", "dynamodb"])
def store(request: pytest.FixtureRequest, clock: Clock) -> DocumentStore:
    if request.param == "memory":
        return InMemoryDocumentStore(max_item_bytes=BUDGET, clock=clock)
    return DynamoDbDocumentStore(request.getfixturevalue("dynamodb_client"), TABLE, max_item_bytes=BUDGET, clock=clock)


def doc(doc_id: str, *, version: int = 1, body: dict[str, Any] | None = None) -> Document:
    return Document(
        kind="game",
        doc_id=doc_id,
        body=body or {"moves": "e2e4"},
        version=version,
        created_at=1_000,
        updated_at=1_000,
        expires_at=9_000,
    )


def test_a_created_document_reads_back_whole(store: DocumentStore) -> None:
    store.create("openai:alice", doc("g1", body={"moves": "e2e4 e7e5", "n": [1, "é"]}))
    assert store.get("openai:alice", "game", "g1") == doc("g1", body={"moves": "e2e4 e7e5", "n": [1, "é"]})


def test_another_owner_cannot_see_the_document(store: DocumentStore) -> None:
    store.create("openai:alice", doc("g1"))
    assert store.get("openai:mallory", "game", "g1") is None
    assert store.newest("openai:mallory", "game", 10) == []


def test_creating_an_existing_id_is_refused_and_keeps_the_original(store: DocumentStore) -> None:
    store.create("o", doc("g1", body={"moves": ""}))
    with pytest.raises(AlreadyExists):
        store.create("o", doc("g1", body={"moves": "overwritten"}))
    assert store.get("o", "game", "g1") == doc("g1", body={"moves": ""})


def test_a_replace_at_the_read_version_succeeds(store: DocumentStore) -> None:
    first = doc("g1")
    store.create("o", first)
    second = first.next({"moves": "e2e4 e7e5"}, now=2_000, expires_at=10_000)
    store.replace("o", second, expected_version=1)
    assert store.get("o", "game", "g1") == second


def test_a_stale_replace_is_a_conflict_that_carries_the_current_document(store: DocumentStore) -> None:
    first = doc("g1")
    store.create("o", first)
    winner = first.next({"moves": "e2e4 e7e5"}, now=2_000, expires_at=10_000)
    store.replace("o", winner, expected_version=1)
    with pytest.raises(VersionConflict) as conflict:
        store.replace("o", first.next({"moves": "e2e4 c7c5"}, now=2_001, expires_at=10_000), expected_version=1)
    assert conflict.value.current == winner
    assert store.get("o", "game", "g1") == winner


def test_replacing_a_missing_document_is_a_conflict_with_nothing_current(store: DocumentStore) -> None:
    with pytest.raises(VersionConflict) as conflict:
        store.replace("o", doc("ghost", version=2), expected_version=1)
    assert conflict.value.current is None
    assert store.get("o", "game", "ghost") is None


def test_newest_lists_an_owners_documents_of_one_kind_newest_first(store: DocumentStore) -> None:
    ids = [time_ordered_id(now_ms) for now_ms in (1_000, 2_000, 3_000)]
    for doc_id in ids:
        store.create("o", doc(doc_id))
    store.create("o", Document("form", "f1", {}, 1, 1, 1, 1))
    assert [d.doc_id for d in store.newest("o", "game", 2)] == [ids[2], ids[1]]


def test_get_many_reads_each_key_in_its_order_and_none_for_a_missing_one(store: DocumentStore) -> None:
    store.create("o", doc("g1"))
    store.create("p", doc("g2", body={"moves": "e4"}))
    keys = [("p", "game", "g2"), ("o", "game", "missing"), ("o", "game", "g1"), ("p", "game", "g2")]
    assert store.get_many(keys) == [store.get(*key) for key in keys]
    assert [d.doc_id if d else None for d in store.get_many(keys)] == ["g2", None, "g1", "g2"]
    assert store.get_many([]) == []


def test_a_dynamodb_get_many_is_one_strongly_consistent_batch_get_per_hundred_keys(dynamodb_client: Any) -> None:
    store = DynamoDbDocumentStore(dynamodb_client, TABLE)
    for number in range(GET_MANY_KEYS + 1):
        store.create("o", doc(f"g{number}"))
    log = CallLog(dynamodb_client)
    read = store.get_many([("o", "game", f"g{number}") for number in range(GET_MANY_KEYS + 1)])
    assert [d.doc_id if d else None for d in read] == [f"g{number}" for number in range(GET_MANY_KEYS + 1)]
    assert [name for name, _ in log.calls] == ["BatchGetItem", "BatchGetItem"]
    assert [len(params["RequestItems"][TABLE]["Keys"]) for _, params in log.calls] == [GET_MANY_KEYS, 1]
    assert all(params["RequestItems"][TABLE]["ConsistentRead"] is True for _, params in log.calls)


class LeavesKeysUnprocessed:
    """A DynamoDB client whose first `times` BatchGetItems process none of their keys, as a throttled table may."""

    def __init__(self, client: Any, times: int) -> None:
        self._client, self.times = client, times

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def batch_get_item(self, **params: Any) -> dict[str, Any]:
        if self.times:
            self.times -= 1
            return {"Responses": {TABLE: []}, "UnprocessedKeys": params["RequestItems"]}
        result: dict[str, Any] = self._client.batch_get_item(**params)
        return result


def test_a_dynamodb_get_many_asks_again_for_unprocessed_keys_then_is_unavailable(dynamodb_client: Any) -> None:
    DynamoDbDocumentStore(dynamodb_client, TABLE).create("o", doc("g1"))
    once = DynamoDbDocumentStore(LeavesKeysUnprocessed(dynamodb_client, 1), TABLE, sleep=lambda _: None)  # type: ignore[arg-type]
    assert [d.doc_id if d else None for d in once.get_many([("o", "game", "g1")])] == ["g1"]
    always = DynamoDbDocumentStore(LeavesKeysUnprocessed(dynamodb_client, 99), TABLE, sleep=lambda _: None)  # type: ignore[arg-type]
    with pytest.raises(StoreUnavailable):
        always.get_many([("o", "game", "g1")])


def test_time_ordered_ids_sort_by_creation_time() -> None:
    assert time_ordered_id(1) < time_ordered_id(2) < time_ordered_id(10**12)
    assert len(time_ordered_id()) == 22


def test_a_dynamodb_read_is_one_strongly_consistent_get_item(dynamodb_client: Any) -> None:
    calls: list[tuple[str, dict[str, Any]]] = []
    dynamodb_client.meta.events.register(
        "provide-client-params.dynamodb.*", lambda params, model, **_: calls.append((model.name, dict(params)))
    )
    store = DynamoDbDocumentStore(dynamodb_client, TABLE)
    store.create("o", doc("g1"))
    store.replace("o", doc("g1", version=2), expected_version=1)
    store.get("o", "game", "g1")
    assert [name for name, _ in calls] == ["PutItem", "PutItem", "GetItem"]
    assert calls[2][1]["ConsistentRead"] is True
    assert "ConditionExpression" in calls[0][1]
    assert "ConditionExpression" in calls[1][1]


def test_an_unreachable_dynamodb_is_reported_as_unavailable() -> None:
    client = boto3.client(
        "dynamodb",
        region_name="eu-west-1",
        endpoint_url="http://127.0.0.1:9",
        aws_access_key_id="t",
        aws_secret_access_key="t",
        config=Config(retries={"max_attempts": 1}, connect_timeout=1),
    )
    with pytest.raises(StoreUnavailable, match="reading game failed: EndpointConnectionError"):
        DynamoDbDocumentStore(client, TABLE).get("o", "game", "g1")


def sized(doc_id: str, size: int, owner: str = "o") -> Document:
    """A document whose item takes exactly `size` bytes by DynamoDB's rule."""
    base = doc(doc_id, body={"pad": ""})
    padding = size - item_size(to_item(owner, base))
    assert padding >= 0
    return doc(doc_id, body={"pad": "p" * padding})


def test_an_item_at_the_budget_is_stored_and_one_byte_more_is_refused_before_writing(store: DocumentStore) -> None:
    store.create("o", sized("fits", BUDGET))
    with pytest.raises(ItemOverBudget) as refused:
        store.create("o", sized("over", BUDGET + 1))
    assert (refused.value.size, refused.value.budget) == (BUDGET + 1, BUDGET)
    assert store.get("o", "game", "fits") == sized("fits", BUDGET)
    assert store.get("o", "game", "over") is None


def test_a_replace_over_the_budget_is_refused_and_keeps_the_stored_version(store: DocumentStore) -> None:
    first = sized("g1", 500)
    store.create("o", first)
    grown = first.next({"pad": "p" * BUDGET}, now=2_000, expires_at=10_000)
    with pytest.raises(ItemOverBudget):
        store.replace("o", grown, expected_version=1)
    assert store.get("o", "game", "g1") == first


def counted(doc_id: str, holder: str = "source:203.0.113.9", *, expires_at: int = 9_000) -> Document:
    return replace(doc(doc_id), expires_at=expires_at).counted_for(holder)


def test_a_holder_may_keep_its_quota_of_live_documents_and_no_more(store: DocumentStore) -> None:
    store.create("capability:a", counted("a"), quota=2)
    store.create("capability:b", counted("b"), quota=2)
    with pytest.raises(QuotaFull) as full:
        store.create("capability:c", counted("c"), quota=2)
    assert (full.value.limit, full.value.frees_at) == (2, 9_000 + COUNT_SLACK_SECONDS)
    assert store.get("capability:c", "game", "c") is None
    store.create("capability:d", counted("d", holder="source:198.51.100.7"), quota=2)  # another holder
    store.create("capability:e", replace(counted("e"), kind="form"), quota=2)  # another kind


def test_documents_stop_counting_once_expired_so_their_places_free_up(store: DocumentStore, clock: Clock) -> None:
    store.create("capability:a", counted("a", expires_at=5_000), quota=1)
    clock.now = 5_000 + COUNT_SLACK_SECONDS - 1
    with pytest.raises(QuotaFull):
        store.create("capability:b", counted("b"), quota=1)
    clock.now = 5_000 + COUNT_SLACK_SECONDS
    store.create("capability:b", counted("b", expires_at=20_000), quota=1)
    assert store.get("capability:b", "game", "b") is not None


def test_a_document_kept_alive_by_use_keeps_counting_past_its_first_expiry(store: DocumentStore, clock: Clock) -> None:
    first = counted("a", expires_at=5_000)
    store.create("capability:a", first, quota=1)
    clock.now = 5_000 + COUNT_SLACK_SECONDS - 10
    later = first.next({"moves": "e2e4 e7e5"}, now=int(clock.now), expires_at=int(clock.now) + 90_000)
    assert later.recount
    store.replace("capability:a", later, expected_version=1)
    clock.now += 50_000  # past the first count, before the new expiry
    with pytest.raises(QuotaFull):
        store.create("capability:b", counted("b"), quota=1)
    assert store.get("capability:a", "game", "a") == later


def test_a_replace_within_the_counted_time_leaves_the_count_alone(store: DocumentStore) -> None:
    first = counted("a", expires_at=5_000)
    store.create("capability:a", first, quota=1)
    later = first.next({"moves": "e2e4"}, now=2_000, expires_at=5_000 + COUNT_SLACK_SECONDS // 2)
    assert not later.recount
    store.replace("capability:a", later, expected_version=1)
    assert store.get("capability:a", "game", "a") == later


def test_a_stale_counted_replace_is_a_conflict_carrying_the_current_document(store: DocumentStore) -> None:
    first = counted("a", expires_at=5_000)
    store.create("capability:a", first, quota=1)
    winner = first.next({"moves": "e2e4"}, now=2_000, expires_at=100_000)
    store.replace("capability:a", winner, expected_version=1)
    with pytest.raises(VersionConflict) as conflict:
        store.replace("capability:a", first.next({"moves": "d2d4"}, now=2_001, expires_at=100_001), expected_version=1)
    assert conflict.value.current == winner


def test_creating_a_counted_document_whose_id_is_taken_is_refused_and_counts_nothing(store: DocumentStore) -> None:
    store.create("capability:a", counted("a"), quota=2)
    with pytest.raises(AlreadyExists):
        store.create("capability:a", counted("a"), quota=2)
    store.create("capability:b", counted("b"), quota=2)


def test_a_bounded_counter_counts_up_to_its_limit_per_window(store: DocumentStore) -> None:
    assert [store.hit("source:203.0.113.9", "100", 3, 2_000) for _ in range(5)] == [True, True, True, False, False]
    assert store.hit("source:203.0.113.9", "101", 3, 2_000)
    assert store.hit("openai:alice", "100", 3, 2_000)


@pytest.fixture(params=["memory", "dynamodb"])
def served_store(request: pytest.FixtureRequest, clock: Clock) -> Iterator[DocumentStore]:
    """A store that real threads may race on: the fake, or the DynamoDB adapter on a moto server on loopback (which
    applies each request alone, as DynamoDB applies each conditional write atomically)."""
    if request.param == "memory":
        yield InMemoryDocumentStore(clock=clock)
        return
    table = fresh_table()
    with moto_dynamodb(table) as url:
        yield DynamoDbDocumentStore(client_for(url), table, clock=clock)


def fresh_table() -> str:
    """A table name no other test uses: moto keeps its tables per process, whichever server serves them."""
    return f"{TABLE}-{secrets.token_hex(4)}"


def race(store: DocumentStore, creates: int, quota: int, holder: str = "source:203.0.113.9") -> list[bool]:
    """`creates` counted creates for one holder, 10 threads at a time: whether each landed (False: QuotaFull)."""

    def create(n: int) -> bool:
        try:
            store.create(f"capability:{n}", counted(f"g{n}", holder, expires_at=2**40), quota=quota)
        except QuotaFull:
            return False
        return True

    with ThreadPoolExecutor(max_workers=10) as pool:
        return list(pool.map(create, range(creates)))


def test_racing_creates_for_one_holder_all_land_while_places_remain(served_store: DocumentStore) -> None:
    landed = race(served_store, 40, quota=40)
    assert landed == [True] * 40
    assert all(served_store.get(f"capability:{n}", "game", f"g{n}") for n in range(40))
    with pytest.raises(QuotaFull):  # every one of them was counted
        served_store.create("capability:x", counted("x", expires_at=2**40), quota=40)


def test_racing_creates_never_exceed_the_quota(served_store: DocumentStore) -> None:
    landed = race(served_store, 12, quota=3)
    assert landed.count(True) == 3
    assert [n for n in range(12) if served_store.get(f"capability:{n}", "game", f"g{n}")] == [
        n for n, ok in enumerate(landed) if ok
    ]


def test_a_dynamodb_create_that_keeps_losing_the_ledger_race_backs_off_then_is_busy_and_writes_nothing() -> None:
    table = fresh_table()
    with moto_dynamodb(table) as url:
        pauses: list[float] = []
        store = DynamoDbDocumentStore(client_for(url), table, sleep=pauses.append)
        rival = DynamoDbDocumentStore(client_for(url), table)
        faults = FaultInjector(store.client)
        # Before every one of this create's transactions, another create for the same holder lands.
        rivals = iter(range(LEDGER_ATTEMPTS))

        def rival_lands() -> None:
            n = next(rivals)
            rival.create(f"capability:r{n}", counted(f"r{n}", expires_at=2**40), quota=100)

        faults.plan("TransactWriteItems", before(rival_lands))

        with pytest.raises(StoreBusy) as busy:
            store.create("capability:a", counted("a", expires_at=2**40), quota=100)

        assert isinstance(busy.value, StoreUnavailable)  # retryable wherever storage failures are handled
        assert not busy.value.outcome_unknown
        assert busy.value.retry_after >= 1
        assert faults.attempts == {"GetItem": LEDGER_ATTEMPTS, "TransactWriteItems": LEDGER_ATTEMPTS}
        assert len(pauses) == LEDGER_ATTEMPTS - 1
        assert all(0 <= pause <= LEDGER_BACKOFF_CAP_SECONDS for pause in pauses)
        assert store.get("capability:a", "game", "a") is None


def test_ledger_backoff_grows_from_its_base_to_its_cap_and_is_jittered_below_that() -> None:
    assert [ledger_backoff(lost, rng=lambda: 1.0) for lost in (1, 2, 3)] == [
        LEDGER_BACKOFF_SECONDS * 2,
        LEDGER_BACKOFF_SECONDS * 4,
        LEDGER_BACKOFF_SECONDS * 8,
    ]
    assert ledger_backoff(30, rng=lambda: 1.0) == LEDGER_BACKOFF_CAP_SECONDS
    assert ledger_backoff(3, rng=lambda: 0.5) == LEDGER_BACKOFF_SECONDS * 4
    worst = sum(ledger_backoff(lost, rng=lambda: 1.0) for lost in range(1, LEDGER_ATTEMPTS))
    assert worst < 5  # seconds: a burst that outlasts the retries still answers well inside the function's timeout


def test_a_dynamodb_create_that_loses_the_last_place_to_a_rival_rereads_the_ledger_and_is_refused() -> None:
    with moto_dynamodb(TABLE) as url:
        store, rival = DynamoDbDocumentStore(client_for(url), TABLE), DynamoDbDocumentStore(client_for(url), TABLE)
        faults = FaultInjector(store.client)
        # The rival's create lands between this create's read of the ledger and its transaction.
        later = 2**40  # counted long past the adapter's clock (the real time)
        rivals = counted("r", expires_at=later)
        faults.plan("TransactWriteItems", before(lambda: rival.create("capability:r", rivals, quota=1)), 1)

        with pytest.raises(QuotaFull):
            store.create("capability:a", counted("a", expires_at=later), quota=1)

        assert faults.attempts == {"GetItem": 2, "TransactWriteItems": 1}
        assert store.get("capability:a", "game", "a") is None
        assert store.get("capability:r", "game", "r") == rivals


def test_racing_hits_count_exactly_up_to_the_limit() -> None:
    store = InMemoryDocumentStore()
    with ThreadPoolExecutor(max_workers=8) as pool:
        admitted = list(pool.map(lambda _: store.hit("source:203.0.113.9", "7", 10, 2**40), range(30)))
    assert admitted.count(True) == 10


def test_a_counted_dynamodb_create_is_a_ledger_read_and_one_transaction(dynamodb_client: Any) -> None:
    log = CallLog(dynamodb_client)
    store = DynamoDbDocumentStore(dynamodb_client, TABLE)
    store.create("capability:a", counted("a"), quota=5)
    assert [name for name, _ in log.calls] == ["GetItem", "TransactWriteItems"]
    assert log.calls[0][1]["ConsistentRead"] is True
    puts = [part["Put"] for part in log.calls[1][1]["TransactItems"]]
    assert all("ConditionExpression" in put for put in puts)
    assert "ClientRequestToken" in log.calls[1][1]


def test_a_dynamodb_hit_is_one_conditional_update(dynamodb_client: Any) -> None:
    log = CallLog(dynamodb_client)
    DynamoDbDocumentStore(dynamodb_client, TABLE).hit("source:203.0.113.9", "1", 2, 2_000)
    ((name, params),) = log.calls
    assert name == "UpdateItem"
    assert params["ConditionExpression"] == "attribute_not_exists(#n) OR #n < :limit"


def ended(document: Document, now: int = 2_000) -> Document:
    """The next version of `document`, no longer live (a game that ended, a form answered)."""
    return document.next({"moves": "resigned"}, now=now, expires_at=now + 30_000, live=False)


def test_a_document_that_stops_being_live_gives_its_place_back_an_hour_after_the_write_that_ends_it(
    store: DocumentStore, clock: Clock
) -> None:
    a, b = counted("a"), counted("b")
    store.create("capability:a", a, quota=2)
    store.create("capability:b", b, quota=2)
    with pytest.raises(QuotaFull):
        store.create("capability:c", counted("c"), quota=2)

    done = ended(a)
    assert done.released_from == "source:203.0.113.9"
    store.replace("capability:a", done, expected_version=1)

    assert store.get("capability:a", "game", "a") == done
    assert done.quota_holder is None  # it counts against nobody from now on, whatever happens to it
    with pytest.raises(QuotaFull) as held:  # held an hour, so ended state kept for days stays bounded by the quota
        store.create("capability:c", counted("c"), quota=2)
    assert held.value.frees_at == int(clock.now) + ENDED_COUNT_SECONDS
    clock.now += ENDED_COUNT_SECONDS
    store.create("capability:c", counted("c"), quota=2)
    with pytest.raises(QuotaFull):
        store.create("capability:d", counted("d"), quota=2)


def test_a_stale_end_is_a_conflict_and_gives_no_place_back(store: DocumentStore) -> None:
    first = counted("a")
    store.create("capability:a", first, quota=1)
    moved = first.next({"moves": "e2e4"}, now=2_000, expires_at=9_000)
    store.replace("capability:a", moved, expected_version=1)

    with pytest.raises(VersionConflict) as conflict:
        store.replace("capability:a", ended(first), expected_version=1)

    assert conflict.value.current == moved
    with pytest.raises(QuotaFull):
        store.create("capability:b", counted("b"), quota=1)


def test_a_document_that_never_ends_stops_counting_by_a_day_after_it_expires(
    store: DocumentStore, clock: Clock
) -> None:
    store.create("capability:a", counted("a", expires_at=5_000), quota=1)
    clock.now = 5_000 + 86_400
    store.create("capability:b", counted("b", expires_at=2**40), quota=1)


def test_racing_ends_and_creates_keep_the_count_exact(served_store: DocumentStore, clock: Clock) -> None:
    """Two documents end while eight creates race for the ledger: the ends hold their places for the hour, so every
    create is refused, and once the hour is over exactly the two places are free: filling up stops at the quota."""
    quota, holder = 5, "source:203.0.113.9"
    live = {f"g{n}": counted(f"g{n}", holder, expires_at=2**40) for n in range(quota)}
    for doc_id, document in live.items():
        served_store.create(f"capability:{doc_id}", document, quota=quota)

    def end(doc_id: str) -> bool:
        served_store.replace(f"capability:{doc_id}", ended(live[doc_id]), expected_version=1)
        return True

    def create(doc_id: str) -> bool:
        try:
            served_store.create(f"capability:{doc_id}", counted(doc_id, holder, expires_at=2**40), quota=quota)
        except QuotaFull:
            return False
        return True

    jobs = [(end, "g0"), (end, "g1")] + [(create, f"n{n}") for n in range(8)]
    with ThreadPoolExecutor(max_workers=10) as pool:
        outcomes = dict(zip([doc_id for _, doc_id in jobs], pool.map(lambda job: job[0](job[1]), jobs), strict=True))
    assert not any(outcomes[f"n{n}"] for n in range(8))
    clock.now += ENDED_COUNT_SECONDS
    filled = 0
    while create(f"fill{filled}"):
        filled += 1

    assert [served_store.get(f"capability:g{n}", "game", f"g{n}") for n in (0, 1)] == [
        ended(live["g0"]),
        ended(live["g1"]),
    ]
    assert filled == 2  # exactly the two places given back
    ids = [*live, *(f"n{n}" for n in range(8)), *(f"fill{n}" for n in range(filled))]
    stored = [served_store.get(f"capability:{doc_id}", "game", doc_id) for doc_id in ids]
    assert sum(1 for d in stored if d is not None and d.quota_holder is not None) == quota


def test_a_dynamodb_end_that_keeps_losing_the_ledger_race_is_busy_and_leaves_the_document_live() -> None:
    table = fresh_table()
    with moto_dynamodb(table) as url:
        store = DynamoDbDocumentStore(client_for(url), table, sleep=lambda _: None)
        rival = DynamoDbDocumentStore(client_for(url), table)
        first = counted("a", expires_at=2**40)
        store.create("capability:a", first, quota=100)
        rivals = iter(range(LEDGER_ATTEMPTS))

        def rival_lands() -> None:
            n = next(rivals)
            rival.create(f"capability:r{n}", counted(f"r{n}", expires_at=2**40), quota=100)

        FaultInjector(store.client).plan("TransactWriteItems", before(rival_lands))

        with pytest.raises(StoreBusy):
            store.replace("capability:a", ended(first), expected_version=1)

        assert store.get("capability:a", "game", "a") == first  # not ended, still counted: retrying is safe


def test_a_first_add_creates_the_document_with_its_counters(store: DocumentStore, clock: Clock) -> None:
    made = store.add("o", "poll", "p1", {"yes": 1}, expires_at=9_000)
    assert made == Document("poll", "p1", {}, 1, 1_000, 1_000, 9_000, counts={"yes": 1})
    assert store.get("o", "poll", "p1") == made


def test_adds_to_an_existing_document_move_its_counts_and_its_version_and_keep_its_body(
    store: DocumentStore, clock: Clock
) -> None:
    store.create("o", doc("g1", body={"question": "Lunch?"}))
    clock.now = 2_000
    store.add("o", "game", "g1", {"yes": 2, "no": 1}, expires_at=5_000)
    after = store.add("o", "game", "g1", {"yes": -1, "maybe": 4})
    assert after == replace(
        doc("g1", body={"question": "Lunch?"}), version=3, updated_at=2_000, counts={"yes": 1, "no": 1, "maybe": 4}
    )
    assert after.expires_at == 9_000  # an add keeps an existing document's expiry
    assert store.get("o", "game", "g1") == after


def test_a_replace_read_before_an_add_is_a_conflict_and_the_counts_survive(store: DocumentStore) -> None:
    first = store.add("o", "poll", "p1", {"yes": 1}, expires_at=9_000)
    counted = store.add("o", "poll", "p1", {"yes": 1})
    with pytest.raises(VersionConflict) as conflict:
        store.replace("o", first.next({"closed": True}, now=2_000, expires_at=9_000), expected_version=first.version)
    assert conflict.value.current == counted
    closed = counted.next({"closed": True}, now=2_000, expires_at=9_000)
    store.replace("o", closed, expected_version=counted.version)
    assert store.add("o", "poll", "p1", {"yes": 1}).counts == {"yes": 3}


def test_an_add_without_an_expiry_to_a_missing_document_is_a_conflict_and_writes_nothing(store: DocumentStore) -> None:
    with pytest.raises(VersionConflict) as conflict:
        store.add("o", "poll", "ghost", {"yes": 1})
    assert conflict.value.current is None
    assert store.get("o", "poll", "ghost") is None


@pytest.mark.parametrize(
    ("increments", "field"),
    [
        ({"bad name": 1}, "bad name"),
        ({"body.yes": 1}, "body.yes"),
        ({"#v": 1}, "#v"),
        ({"1st": 1}, "1st"),
        ({"x" * 33: 1}, "x" * 33),
        ({"yes": True}, "yes"),
        ({"yes": 1.5}, "yes"),
        ({"yes": COUNT_LIMIT + 1}, "yes"),
    ],
)
def test_an_add_with_a_bad_counter_name_or_increment_is_refused_naming_it(
    store: DocumentStore, increments: dict[str, Any], field: str
) -> None:
    with pytest.raises(BadCounter) as refused:
        store.add("o", "poll", "p1", increments, expires_at=9_000)
    assert isinstance(refused.value, ValueError)
    assert (refused.value.name, refused.value.increment) == (field, increments[field])
    assert store.get("o", "poll", "p1") is None


def test_a_count_past_its_bound_is_refused_and_the_count_stays(store: DocumentStore) -> None:
    store.add("o", "poll", "p1", {"yes": COUNT_LIMIT - 1}, expires_at=9_000)
    with pytest.raises(CountOutOfRange) as refused:
        store.add("o", "poll", "p1", {"yes": 2})
    assert (refused.value.name, refused.value.count, refused.value.increment) == ("yes", COUNT_LIMIT - 1, 2)
    assert store.add("o", "poll", "p1", {"yes": 1}).counts == {"yes": COUNT_LIMIT}
    with pytest.raises(CountOutOfRange):
        store.add("o", "poll", "p1", {"no": -COUNT_LIMIT, "yes": 1})
    assert store.get("o", "poll", "p1").counts == {"yes": COUNT_LIMIT}  # type: ignore[union-attr]


def test_a_document_takes_at_most_its_number_of_counters(store: DocumentStore) -> None:
    store.add("o", "poll", "p1", {f"c{i}": 1 for i in range(MAX_COUNTERS)}, expires_at=9_000)
    with pytest.raises(TooManyCounters) as refused:
        store.add("o", "poll", "p1", {"c0": 1, "extra": 1})
    assert refused.value.names == ["extra"]
    assert store.add("o", "poll", "p1", {"c0": 1}).counts["c0"] == 2


def test_an_add_to_a_document_whose_body_leaves_too_little_room_is_refused(store: DocumentStore) -> None:
    room = add_room("o", "game", "big", BUDGET)
    store.create("o", doc("big", body={"text": "x" * (room - len('{"text":""}'))}))
    assert store.add("o", "game", "big", {"n": 1}).counts == {"n": 1}
    store.create("o", doc("bigger", body={"text": "x" * (room - len('{"text":""}') + 1)}))
    with pytest.raises(ItemOverBudget):
        store.add("o", "game", "bigger", {"n": 1})
    assert store.get("o", "game", "bigger") == doc("bigger", body={"text": "x" * (room - len('{"text":""}') + 1)})


def test_twenty_racing_adds_to_one_counter_all_land_without_retries(served_store: DocumentStore) -> None:
    def vote(_: int) -> Document:
        return served_store.add("o", "poll", "p1", {"yes": 1}, expires_at=10**10)

    with ThreadPoolExecutor(max_workers=20) as pool:
        results = list(pool.map(vote, range(20)))
    final = served_store.get("o", "poll", "p1")
    assert final is not None
    assert final.counts == {"yes": 20}
    assert sorted(r.counts["yes"] for r in results) == list(range(1, 21))  # each add saw its own increment land
    assert final.version == 20


def test_a_deleted_document_is_gone_and_others_of_the_owner_and_of_other_owners_stay(store: DocumentStore) -> None:
    for owner in ("user:a", "user:b"):
        store.create(owner, doc("g1"))
        store.create(owner, doc("g2"))

    store.delete("user:a", doc("g1"))
    store.delete("user:a", doc("never-stored"))  # nothing to delete is no error

    assert store.get("user:a", "game", "g1") is None
    assert store.get("user:a", "game", "g2") == doc("g2")
    assert [d.doc_id for d in store.every("user:b", "game", 10)] == ["g2", "g1"]


def test_deleting_a_counted_document_frees_its_place_in_the_quota_at_once(store: DocumentStore) -> None:
    first = counted("a", holder="user:a")
    store.create("user:a", first, quota=1)
    with pytest.raises(QuotaFull):
        store.create("user:a", counted("b", holder="user:a"), quota=1)

    store.delete("user:a", first)

    store.create("user:a", counted("b", holder="user:a"), quota=1)
    assert store.get("user:a", "game", "a") is None


def test_every_walks_all_of_an_owners_documents_of_a_kind_newest_first_up_to_its_limit(store: DocumentStore) -> None:
    ids = [f"{n:03d}" for n in range(130)]  # more than one page of the DynamoDB adapter
    for doc_id in ids:
        store.create("user:a", doc(doc_id))
    store.create("user:a", replace(doc("f1"), kind="form"))
    store.create("user:b", doc("999"))

    assert [d.doc_id for d in store.every("user:a", "game", 1_000)] == ids[::-1]
    assert [d.doc_id for d in store.every("user:a", "game", 5)] == ids[::-1][:5]
    assert [d.kind for d in store.every("user:a", "form", 10)] == ["form"]


def test_every_after_an_id_resumes_with_the_older_documents_of_that_owner_and_kind_alone(store: DocumentStore) -> None:
    ids = [f"{n:03d}" for n in range(130)]
    for doc_id in ids:
        store.create("user:a", doc(doc_id))
    store.create("user:a", replace(doc("000"), kind="aaa"))  # a kind that sorts before, in the same partition
    store.create("user:b", doc("050"))

    assert [d.doc_id for d in store.every("user:a", "game", 1_000, after="120")] == ids[:120][::-1]
    assert [d.doc_id for d in store.every("user:a", "game", 3, after="120")] == ["119", "118", "117"]
    # an id that no longer exists (or never did) still marks the place
    assert [d.doc_id for d in store.every("user:a", "game", 2, after="050x")] == ["050", "049"]
    assert store.every("user:a", "game", 10, after="000") == []
    assert [d.doc_id for d in store.every("user:b", "game", 10, after="120")] == ["050"]
