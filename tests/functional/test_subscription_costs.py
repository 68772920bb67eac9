"""What resource subscriptions cost the state table, counted as the DynamoDB requests real boto3 sends (moto): a
change is one read and one write however many sessions follow the resource, a poll one query and one batch read of
the resources it follows, a subscribe one read and one write, a refused one no write."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from clocks import Clock
from dynamodb_probe import CallLog
from moto import mock_aws
from widget_mcp.storage.dynamodb import DynamoDbDocumentStore
from widget_mcp.storage.table import create_state_table
from widget_mcp.transport.subscriptions import (
    DELIVERY_LAG_MS,
    MAX_SUBSCRIPTIONS_PER_CALLER,
    Subscriptions,
    TooManySubscriptions,
)

TABLE = "subscription-costs"
OSLO = "trip://departures/Oslo"
WRITES = {"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"}


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def client(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB"):
        monkeypatch.delenv(name, raising=False)
    with mock_aws():
        made = boto3.client("dynamodb", region_name="us-east-1", aws_access_key_id="t", aws_secret_access_key="t")
        create_state_table(made, TABLE)
        yield made


@pytest.fixture
def log(client: Any) -> CallLog:
    return CallLog(client)


@pytest.fixture
def subs(client: Any, clock: Clock) -> Subscriptions:
    return Subscriptions(DynamoDbDocumentStore(client, TABLE, clock=clock), clock)


def names(log: CallLog) -> list[str]:
    return [name for name, _ in log.calls]


def test_one_change_is_one_read_and_one_write_however_many_sessions_follow_the_resource(
    subs: Subscriptions, log: CallLog, clock: Clock
) -> None:
    costs = []
    followers = 0
    for total in (1, 200):
        while followers < total:
            subs.subscribe(f"session-{followers}", OSLO, f"caller-{followers}")
            followers += 1
        clock.now += 1
        log.clear()
        subs.updated(OSLO)
        costs.append(names(log))
    assert costs == [["GetItem", "PutItem"], ["GetItem", "PutItem"]]
    clock.now += DELIVERY_LAG_MS / 1000
    assert subs.changes("session-0", None, 0)[0] == [OSLO]
    assert subs.changes("session-199", None, 0)[0] == [OSLO]


def test_a_poll_is_one_query_and_one_batch_read_of_the_resources_the_session_follows(
    subs: Subscriptions, log: CallLog, clock: Clock
) -> None:
    uris = [f"trip://departures/city{n}" for n in range(MAX_SUBSCRIPTIONS_PER_CALLER)]
    for uri in uris:
        subs.subscribe("busy", uri, "busy-caller")
    subs.subscribe("quiet", OSLO, "quiet-caller")
    clock.now += 1
    for uri in [*uris, OSLO]:
        subs.updated(uri)
    clock.now += DELIVERY_LAG_MS / 1000
    log.clear()
    told, _ = subs.changes("busy", None, 0)
    assert sorted(told) == sorted(uris)
    assert names(log) == ["Query", "BatchGetItem"]
    assert len(log.calls[1][1]["RequestItems"][TABLE]["Keys"]) == MAX_SUBSCRIPTIONS_PER_CALLER
    log.clear()
    assert subs.changes("quiet", None, 0)[0] == [OSLO]
    assert names(log) == ["Query", "BatchGetItem"]
    log.clear()
    assert subs.changes("nobody", None, 0)[0] == []
    assert names(log) == ["Query"]


def test_a_subscribe_and_a_renewal_are_one_read_and_one_write_and_a_refused_one_writes_nothing(
    subs: Subscriptions, log: CallLog
) -> None:
    for number in range(MAX_SUBSCRIPTIONS_PER_CALLER):
        subs.subscribe("s1", f"trip://departures/city{number}", "full")
    log.clear()
    subs.subscribe("s1", "trip://departures/city0", "full")  # renewed
    assert names(log) == ["GetItem", "PutItem"]
    log.clear()
    with pytest.raises(TooManySubscriptions):
        subs.subscribe("s1", OSLO, "full")
    assert not WRITES & set(names(log))
    log.clear()
    subs.subscribe("s2", OSLO, "someone-else")
    # The subscription, then the caller's ledger and one transaction of both (its place in the caller's quota).
    assert names(log) == ["GetItem", "GetItem", "TransactWriteItems"]
