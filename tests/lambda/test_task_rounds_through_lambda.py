"""A task's round as Lambda delivers it: the asynchronous invocation the function sends itself (task_invokers.py)
reaches `widget_mcp.handler.handler`, which runs the round against the task stored in DynamoDB (moto)."""

from __future__ import annotations

import os
import time

import boto3
from apigw_events import Context, Handler
from widget_mcp.storage.documents import Document
from widget_mcp.storage.dynamodb import DynamoDbDocumentStore
from widget_mcp.task_invokers import task_event
from widget_mcp.toolkit.task_service import KIND
from widget_mcp.toolkit.tasks import TaskRef


def test_a_task_event_runs_the_round_of_the_stored_task_and_stores_its_outcome(handler: Handler) -> None:
    store = DynamoDbDocumentStore(boto3.client("dynamodb"), os.environ["TABLE_NAME"])  # the handler's table
    now = int(time.time())
    ref = TaskRef("capability:lambda-round", "lambda-round")
    body = {
        # A tool this deployment does not serve (as after a deploy that removed it): the round fails, and says so.
        "tool": "retired_tool",
        "arguments": {},
        "principal": ["anonymous", "-"],
        "source": "192.0.2.1",
        "client": {"protocolVersion": "2026-07-28", "capabilities": {}},
        "answers": {},
        "pending": {},
        "status": "working",
        "createdMs": now * 1000,
        "updatedMs": now * 1000,
        "ttlMs": 3_600_000,
        "deadline": now + 600,
    }
    store.create(ref.partition, Document(KIND, ref.task_id, body, 1, now, now, now + 3600))

    reply = handler(task_event(ref), Context())

    assert reply["statusCode"] == 200
    stored = store.get(ref.partition, KIND, ref.task_id)
    assert stored is not None
    assert (stored.version, stored.body["status"]) == (2, "failed")
    assert stored.body["error"] == {"code": -32603, "message": "No tool 'retired_tool' is served any more."}
