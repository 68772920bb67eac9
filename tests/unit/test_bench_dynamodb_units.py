"""`make cost` prices DynamoDB by the units its meter works out from the items (moto's ConsumedCapacity is wrong):
the meter follows DynamoDB's billing rules for each kind of request the store sends."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from dynamodb_probe import client_for, moto_dynamodb

from bench.dynamodb_units import UnitMeter

TABLE = "units"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with moto_dynamodb(TABLE) as started:
        yield started


@pytest.fixture
def metered(url: str) -> tuple[Any, UnitMeter]:
    client = client_for(url)
    return client, UnitMeter(client, client_for(url))


def _item(key: str, size: int) -> dict[str, Any]:
    return {"pk": {"S": "P"}, "sk": {"S": key}, "body": {"S": "x" * size}}


def test_a_write_pays_a_unit_per_kilobyte_of_the_larger_item_before_or_after(metered: tuple[Any, UnitMeter]) -> None:
    client, meter = metered
    client.put_item(TableName=TABLE, Item=_item("w", 3000))
    assert (meter.take().write, meter.units.write) == (3, 0)
    client.put_item(TableName=TABLE, Item=_item("w", 10))  # shrinking still pays for the 3 KB replaced
    assert meter.take().write == 3
    client.update_item(
        TableName=TABLE,
        Key={"pk": {"S": "P"}, "sk": {"S": "w"}},
        UpdateExpression="SET body = :b",
        ExpressionAttributeValues={":b": {"S": "y" * 1500}},
    )
    assert meter.take().write == 2


def test_a_refused_conditional_write_still_pays(metered: tuple[Any, UnitMeter]) -> None:
    client, meter = metered
    client.put_item(TableName=TABLE, Item=_item("c", 100))
    meter.take()
    with pytest.raises(client.exceptions.ConditionalCheckFailedException):
        client.put_item(TableName=TABLE, Item=_item("c", 100), ConditionExpression="attribute_not_exists(pk)")
    taken = meter.take()
    assert (taken.write, taken.requests["PutItem"]) == (1, 1)


def test_a_transaction_pays_twice_for_each_item(metered: tuple[Any, UnitMeter]) -> None:
    client, meter = metered
    client.transact_write_items(
        TransactItems=[{"Put": {"TableName": TABLE, "Item": _item(f"t{i}", 1500)}} for i in range(2)]
    )
    assert meter.take().write == 2 * 2 * 2


def test_a_strongly_consistent_read_pays_a_unit_per_4_kb_and_one_for_a_missing_item(
    metered: tuple[Any, UnitMeter],
) -> None:
    client, meter = metered
    client.put_item(TableName=TABLE, Item=_item("r", 5000))
    meter.take()
    client.get_item(TableName=TABLE, Key={"pk": {"S": "P"}, "sk": {"S": "r"}}, ConsistentRead=True)
    client.get_item(TableName=TABLE, Key={"pk": {"S": "P"}, "sk": {"S": "none"}}, ConsistentRead=True)
    client.get_item(TableName=TABLE, Key={"pk": {"S": "P"}, "sk": {"S": "r"}})  # eventually consistent: half
    taken = meter.take()
    assert (taken.read, taken.write, taken.requests["GetItem"]) == (2 + 1 + 1, 0, 3)


def test_while_sizing_is_off_the_meter_counts_requests_and_reads_nothing(metered: tuple[Any, UnitMeter]) -> None:
    client, meter = metered
    meter.sizing = False
    sent: list[str] = []
    meter.raw.meta.events.register("provide-client-params.dynamodb.*", lambda model, **_: sent.append(model.name))
    client.put_item(TableName=TABLE, Item=_item("off", 10))
    taken = meter.take()
    assert (taken.write, dict(taken.requests), sent) == (0, {"PutItem": 1}, [])


def _in(partition: str, key: str, size: int) -> dict[str, Any]:
    return {"pk": {"S": partition}, "sk": {"S": key}, "body": {"S": "x" * size}}


def test_a_query_pays_for_the_items_it_reads_summed_then_per_4_kb(metered: tuple[Any, UnitMeter]) -> None:
    client, meter = metered
    for key in ("q1", "q2", "q3"):
        client.put_item(TableName=TABLE, Item=_in("Q", key, 1000))  # 3 KB in all: one block summed, three apart
    meter.take()
    query = {"TableName": TABLE, "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "Q"}}}
    assert len(client.query(**query, ConsistentRead=True)["Items"]) == 3
    client.query(**query)  # eventually consistent: half
    taken = meter.take()
    assert (taken.read, taken.requests["Query"]) == (1 + 0.5, 2)


def test_a_batch_read_pays_for_each_item_apart_and_for_each_missing_one(metered: tuple[Any, UnitMeter]) -> None:
    client, meter = metered
    for key in ("b1", "b2"):
        client.put_item(TableName=TABLE, Item=_in("B", key, 1000))
    meter.take()
    keys = [{"pk": {"S": "B"}, "sk": {"S": key}} for key in ("b1", "b2", "none")]
    client.batch_get_item(RequestItems={TABLE: {"Keys": keys, "ConsistentRead": True}})
    client.batch_get_item(RequestItems={TABLE: {"Keys": keys}})  # eventually consistent: half
    taken = meter.take()
    assert (taken.read, taken.write) == (3 + 1.5, 0)
