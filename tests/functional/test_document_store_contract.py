"""One contract, two stores: the in-memory fake and the DynamoDB adapter (on moto, through real boto3 calls)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config
from moto import mock_aws
from widget_mcp.storage.documents import (
    AlreadyExists,
    Document,
    DocumentStore,
    StoreUnavailable,
    VersionConflict,
    time_ordered_id,
)
from widget_mcp.storage.dynamodb import DynamoDbDocumentStore
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.storage.table import create_state_table

TABLE = "contract-state"


@pytest.fixture
def dynamodb_client(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB"):
        monkeypatch.delenv(name, raising=False)
    with mock_aws():
        client = boto3.client("dynamodb", region_name="eu-west-1", aws_access_key_id="t", aws_secret_access_key="t")
        create_state_table(client, TABLE)
        yield client


@pytest.fixture(params=["memory", "dynamodb"])
def store(request: pytest.FixtureRequest) -> DocumentStore:
    if request.param == "memory":
        return InMemoryDocumentStore()
    return DynamoDbDocumentStore(request.getfixturevalue("dynamodb_client"), TABLE)


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
