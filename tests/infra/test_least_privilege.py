"""Least privilege, derived rather than listed: the function's role grants exactly the DynamoDB actions the storage
adapter calls, read from its source and confirmed by what it sends to DynamoDB (moto) on every path.

A transaction has no IAM action of its own: each of its parts is authorized as the single-item call it stands for
(a `Put` as `PutItem`), so the role grants the parts the adapter's transactions are made of."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import botocore.session
import pytest
from botocore import xform_name
from dynamodb_probe import CallLog, client_for, moto_dynamodb
from synth_support import Synthesized
from widget_mcp.storage import dynamodb as adapter
from widget_mcp.storage import dynamodb_counters, dynamodb_erase
from widget_mcp.storage.documents import AlreadyExists, Document, QuotaFull, VersionConflict
from widget_mcp.storage.dynamodb import DynamoDbDocumentStore

TABLE = "least-privilege-state"
TRANSACTION_PARTS = {
    "Put": "PutItem",
    "Update": "UpdateItem",
    "Delete": "DeleteItem",
    "ConditionCheck": "ConditionCheckItem",
}


def _operations_by_method() -> dict[str, str]:
    """boto3 client method → DynamoDB API operation (`get_item` → `GetItem`), from botocore's service model."""
    model = botocore.session.get_session().get_service_model("dynamodb")
    return {xform_name(name): name for name in model.operation_names}


def _tree() -> ast.Module:
    """The adapter's source: the store and the counting writes mixed into it."""
    modules = (adapter, dynamodb_counters, dynamodb_erase)
    parsed = [ast.parse(Path(m.__file__ or "").read_text(encoding="utf-8")) for m in modules]
    return ast.Module(body=[node for tree in parsed for node in tree.body], type_ignores=[])


def _transaction_parts_in_source() -> set[str]:
    """The single-item actions the adapter's transactions are made of: the part names its dict literals use."""
    keys = {
        k.value
        for node in ast.walk(_tree())
        if isinstance(node, ast.Dict)
        for k in node.keys
        if isinstance(k, ast.Constant)  # a `**spread` entry has no key
    }
    return {action for part, action in TRANSACTION_PARTS.items() if part in keys}


def _operations_in_source() -> set[str]:
    """Every `<...>.client.<method>(...)` call in the adapter, as DynamoDB operations."""
    tree = _tree()
    methods = {
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Attribute)
        and node.func.value.attr == "client"
    }
    operations = _operations_by_method()
    assert methods <= set(operations), f"not DynamoDB client methods: {methods - set(operations)}"
    return {operations[m] for m in methods}


@pytest.fixture(scope="module")
def moto_url() -> Iterator[str]:
    with moto_dynamodb(TABLE) as url:
        yield url


def _operations_sent(url: str) -> set[str]:
    """Every request the adapter sends while taking each of its paths once: read (found and missing, alone and
    batched), create
    (new and duplicate; counted against a quota, and refused by it), replace (current and stale version; moving a
    count), list, a rate counter's hit (counted and refused), and counter adds (creating, adding, and to a
    document stored without counters)."""
    client = client_for(url)
    log = CallLog(client)
    store = DynamoDbDocumentStore(client, TABLE)
    doc = Document(kind="game", doc_id="g1", body={"x": 1}, version=1, created_at=1, updated_at=1, expires_at=9)
    store.create("alice", doc)
    with pytest.raises(AlreadyExists):
        store.create("alice", doc)
    assert store.get("alice", "game", "g1") == doc
    assert store.get("alice", "game", "missing") is None
    assert store.get_many([("alice", "game", "g1"), ("alice", "game", "missing")]) == [doc, None]
    newer = Document(kind="game", doc_id="g1", body={"x": 2}, version=2, created_at=1, updated_at=2, expires_at=9)
    store.replace("alice", newer, expected_version=1)
    with pytest.raises(VersionConflict):
        store.replace("alice", newer, expected_version=1)
    assert store.newest("alice", "game", 10) == [newer]
    later = 10**10  # counted documents expire long after the adapter's clock (the real time)
    counted = Document("game", "g1", {}, 1, 1, 1, later).counted_for("source:203.0.113.9")
    store.create("capability:g1", counted, quota=1)
    with pytest.raises(QuotaFull):
        store.create(
            "capability:g2", Document("game", "g2", {}, 1, 1, 1, later).counted_for("source:203.0.113.9"), quota=1
        )
    moved = counted.next({"x": 3}, now=2, expires_at=later * 2)
    assert moved.recount
    store.replace("capability:g1", moved, expected_version=1)
    assert store.hit("source:203.0.113.9", "1", 1, 10**9)
    assert not store.hit("source:203.0.113.9", "1", 1, 10**9)
    assert store.add("alice", "poll", "p1", {"yes": 1}, expires_at=later).counts == {"yes": 1}  # created
    assert store.add("alice", "poll", "p1", {"yes": 1}).counts == {"yes": 2}
    assert store.add("alice", "game", "g1", {"yes": 1}).counts == {"yes": 1}  # given its counter map first
    assert [d.doc_id for d in store.every("alice", "game", 10)] == ["g1"]
    store.delete("alice", newer)  # uncounted: one DeleteItem
    store.delete("capability:g1", moved)  # counted: deleted with its ledger entry, one transaction
    assert store.get("capability:g1", "game", "g1") is None
    return {name for name, _ in log.calls}


def _granted_table_actions(synthesized: Synthesized) -> set[str]:
    (fn,) = [
        r
        for r in synthesized.resources("AWS::Lambda::Function").values()
        if r["Properties"].get("Handler") == "widget_mcp.handler.handler"
    ]
    role = fn["Properties"]["Role"]["Fn::GetAtt"][0]
    statements: list[dict[str, Any]] = [
        s
        for p in synthesized.resources("AWS::IAM::Policy").values()
        if {"Ref": role} in p["Properties"]["Roles"]
        for s in p["Properties"]["PolicyDocument"]["Statement"]
    ]
    actions = {a for s in statements for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])}
    return {a for a in actions if a.startswith("dynamodb:")}


def test_the_adapter_sends_exactly_the_operations_its_source_calls(moto_url: str) -> None:
    assert (
        _operations_sent(moto_url)
        == _operations_in_source()
        == {"BatchGetItem", "DeleteItem", "GetItem", "PutItem", "Query", "TransactWriteItems", "UpdateItem"}
    )


def test_the_role_grants_exactly_the_dynamodb_actions_the_adapter_calls(synthesized: Synthesized) -> None:
    needed = (_operations_in_source() - {"TransactWriteItems"}) | _transaction_parts_in_source()
    assert _transaction_parts_in_source() == {"PutItem", "DeleteItem"}
    assert _granted_table_actions(synthesized) == {f"dynamodb:{op}" for op in needed}


def test_the_role_deletes_only_in_user_and_capability_partitions_never_a_ledger_or_a_rate_counter(
    synthesized: Synthesized,
) -> None:
    deleting = [
        s
        for p in synthesized.resources("AWS::IAM::Policy").values()
        for s in p["Properties"]["PolicyDocument"]["Statement"]
        if "dynamodb:DeleteItem" in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])
    ]

    assert len(deleting) == 1
    assert deleting[0]["Action"] == "dynamodb:DeleteItem"
    assert deleting[0]["Condition"] == {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["USER#*"]}}
