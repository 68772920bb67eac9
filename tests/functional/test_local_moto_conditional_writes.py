"""The embedded moto server (`make dev`, the soak and storage tests) applies each conditional write atomically, as
DynamoDB does: of many puts racing on one item, all expecting the same version, exactly one succeeds.

moto's own threaded server checks the condition and writes without a lock, so two racing puts could both succeed
(seen here: a few rounds in a hundred, with 8 threads and a short thread switch interval); the soak test then saw
two moves stored at one ply."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError
from widget_mcp.local.aws import local_aws

TABLE = "conditional-writes"
WRITERS = 8
ROUNDS = 150
KEY = {"pk": {"S": "USER#racer"}, "sk": {"S": "GAME#one"}}


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    # local_aws points boto3's environment at moto; monkeypatch puts the test process's values back afterwards.
    for name in ("AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_S3"):
        monkeypatch.setenv(name, "unset")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "t")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "t")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    with local_aws(TABLE) as aws:
        yield aws.endpoint_url


@pytest.fixture
def eager_thread_switches() -> Iterator[None]:
    """Switch threads every few microseconds, so a race window inside a request is hit often."""
    saved = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(saved)


def test_of_eight_racing_conditional_puts_on_one_item_exactly_one_succeeds_every_round(
    endpoint: str, eager_thread_switches: None
) -> None:
    clients = [
        boto3.client("dynamodb", endpoint_url=endpoint, config=Config(retries={"max_attempts": 0}))
        for _ in range(WRITERS)
    ]
    clients[0].put_item(TableName=TABLE, Item={**KEY, "v": {"N": "0"}})
    winners: list[list[int]] = []
    for version in range(ROUNDS):
        start = threading.Barrier(WRITERS, timeout=10)

        def put(writer: int, version: int = version, start: threading.Barrier = start) -> int | str:
            """The writer's number if its put succeeded, else the error code it got."""
            item: dict[str, Any] = {**KEY, "v": {"N": str(version + 1)}, "by": {"N": str(writer)}}
            start.wait()
            try:
                clients[writer].put_item(
                    TableName=TABLE,
                    Item=item,
                    ConditionExpression="#v = :expected",
                    ExpressionAttributeNames={"#v": "v"},
                    ExpressionAttributeValues={":expected": {"N": str(version)}},
                )
            except ClientError as exc:
                return str(exc.response["Error"]["Code"])
            return writer

        with ThreadPoolExecutor(WRITERS) as pool:
            outcomes = list(pool.map(put, range(WRITERS)))
        assert {o for o in outcomes if isinstance(o, str)} <= {"ConditionalCheckFailedException"}
        winners.append([o for o in outcomes if isinstance(o, int)])

    assert [len(round_winners) for round_winners in winners] == [1] * ROUNDS
    stored = clients[0].get_item(TableName=TABLE, Key=KEY, ConsistentRead=True)["Item"]
    assert (stored["v"]["N"], stored["by"]["N"]) == (str(ROUNDS), str(winners[-1][0]))
