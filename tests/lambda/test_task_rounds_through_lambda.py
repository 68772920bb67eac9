"""Tasks as Lambda runs them: the call through `widget_mcp.handler.handler` stores the task in DynamoDB (moto) and
sends an asynchronous invocation of the function it was invoked as (task_invokers.LambdaInvoker); that event, handed
back to the handler as Lambda's queue would, runs the round; `tasks/get` through the handler then has the result.

The handler here serves tests/library_app.py beside the registry's apps (the registry has no task tools), and Lambda's
side of the invocation is a queue that keeps what the function sends."""

from __future__ import annotations

import json
from typing import Any

import pytest
from apigw_events import Context, Handler, rpc, v2
from library_app import RUNS, served_with_library
from widget_mcp.task_invokers import LambdaInvoker
from widget_mcp.toolkit.tasks import TASKS_EXTENSION
from widget_mcp.wiring import build_core

__all__ = ["served_with_library"]

ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS_EXTENSION: {}}},
}


class LambdaQueue:
    """Lambda's side of `InvocationType=Event`: keeps each invocation the function sends (boto3's `invoke`)."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def invoke(self, *, FunctionName: str, InvocationType: str, Payload: bytes) -> dict[str, Any]:  # noqa: N803
        self.sent.append({"FunctionName": FunctionName, "InvocationType": InvocationType, "Payload": Payload})
        return {"StatusCode": 202}


@pytest.fixture
def queue(handler: Handler, served_with_library: None, monkeypatch: pytest.MonkeyPatch) -> LambdaQueue:
    import widget_mcp.handler as module

    core = build_core(module.core.settings)
    queue = LambdaQueue()
    invoker = LambdaInvoker(lambda: queue)
    assert core.tasks is not None
    core.tasks.invoker = invoker
    monkeypatch.setattr(module, "core", core)
    monkeypatch.setattr(module, "_invoker", invoker)
    return queue


def call(handler: Handler, method: str, params: dict[str, Any], name: str) -> dict[str, Any]:
    headers = {"mcp-protocol-version": "2026-07-28", "mcp-method": method, "mcp-name": name}
    reply = handler(v2(rpc(method, {**params, "_meta": ENVELOPE}), headers=headers), Context())
    assert reply["statusCode"] == 200, reply["body"]
    result: dict[str, Any] = json.loads(reply["body"])["result"]
    return result


def test_a_task_call_sends_an_invocation_of_the_function_that_runs_its_round_and_stores_the_result(
    handler: Handler, queue: LambdaQueue
) -> None:
    created = call(handler, "tools/call", {"name": "library_count", "arguments": {"shelf": "lambda"}}, "library_count")
    task_id = created["taskId"]

    assert created["resultType"] == "task"
    assert RUNS["library_count"] == 0
    (sent,) = queue.sent
    assert (sent["FunctionName"], sent["InvocationType"]) == (Context.invoked_function_arn, "Event")
    assert call(handler, "tasks/get", {"taskId": task_id}, task_id)["status"] == "working"

    assert handler(json.loads(sent["Payload"]), Context())["statusCode"] == 200

    done = call(handler, "tasks/get", {"taskId": task_id}, task_id)
    assert done["status"] == "completed"
    assert done["result"]["structuredContent"] == {"shelf": "lambda", "books": 2}
    assert RUNS["library_count"] == 1


def test_a_task_event_for_a_task_that_is_gone_changes_nothing(handler: Handler, queue: LambdaQueue) -> None:
    event = {"widget-mcp/task": {"partition": "capability:gone", "taskId": "gone"}}
    assert handler(event, Context())["statusCode"] == 200
    assert queue.sent == []
