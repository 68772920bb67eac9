"""Tasks over loopback HTTP as `make dev` serves them: the state in DynamoDB (moto, real boto3 calls), each round run
by the local invoker (a thread running the worker's code path), polled with `tasks/get` as a client does."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from clocks import mid_window
from dynamodb_probe import client_for, moto_dynamodb
from library_app import served_with_library
from servers import serve
from widget_mcp.settings import Settings
from widget_mcp.task_invokers import LocalInvoker
from widget_mcp.toolkit.limits import CallLimiter, RateLimit
from widget_mcp.toolkit.tasks import TASKS_EXTENSION
from widget_mcp.wiring import Core, build_app, build_core

__all__ = ["served_with_library"]

TABLE = "tasks-state"
POLL_SECONDS = 0.05
POLL_BOUND_SECONDS = 10


def envelope(capabilities: dict[str, Any]) -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    }


WITH_TASKS = envelope({"elicitation": {}, "extensions": {TASKS_EXTENSION: {}}})
WITHOUT = envelope({"elicitation": {}})


@pytest.fixture(scope="module")
def moto_url() -> Iterator[str]:
    with moto_dynamodb(TABLE) as url:
        yield url


@pytest.fixture
def core(settings: Settings, served_with_library: None, moto_url: str, monkeypatch: pytest.MonkeyPatch) -> Core:
    for name, value in {
        "AWS_ENDPOINT_URL_DYNAMODB": moto_url,
        "AWS_ACCESS_KEY_ID": "t",
        "AWS_SECRET_ACCESS_KEY": "t",
        "AWS_DEFAULT_REGION": "eu-west-1",
    }.items():
        monkeypatch.setenv(name, value)
    return build_core(settings.model_copy(update={"table_name": TABLE}), concurrent=True)


@pytest.fixture
def base_url(core: Core) -> Iterator[str]:
    with serve(build_app(core)) as url:
        yield url
    assert isinstance(core.task_invoker, LocalInvoker)
    core.task_invoker.join(POLL_BOUND_SECONDS)


def rpc(
    base_url: str, method: str, params: dict[str, Any], meta: dict[str, Any] = WITH_TASKS, name: str | None = None
) -> httpx.Response:
    headers = {"accept": "application/json", "mcp-protocol-version": "2026-07-28", "mcp-method": method}
    routed = name if name is not None else params.get("name", params.get("taskId"))
    if routed is not None:
        headers["mcp-name"] = routed
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}
    return httpx.post(f"{base_url}/mcp", json=body, headers=headers)


def result(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()["result"]
    return answer


def until(base_url: str, task_id: str, *statuses: str, meta: dict[str, Any] = WITH_TASKS) -> dict[str, Any]:
    """tasks/get until the task reaches one of `statuses` (bounded)."""
    deadline = time.monotonic() + POLL_BOUND_SECONDS
    while True:
        task = result(rpc(base_url, "tasks/get", {"taskId": task_id}, meta))
        if task["status"] in statuses or time.monotonic() > deadline:
            return task
        time.sleep(POLL_SECONDS)


def test_over_http_a_task_is_created_polled_to_its_result_and_kept_in_dynamodb_with_a_ttl(
    base_url: str, moto_url: str, settings: Settings
) -> None:
    created = result(rpc(base_url, "tools/call", {"name": "library_count", "arguments": {"shelf": "poetry"}}))
    assert (created["resultType"], created["status"]) == ("task", "working")
    task_id = created["taskId"]

    done = until(base_url, task_id, "completed", "failed")

    assert done["status"] == "completed"
    assert done["result"]["structuredContent"] == {"shelf": "poetry", "books": 2}
    # A caller without identity holds the task by its id: the item sits in that id's own partition.
    item = client_for(moto_url).get_item(
        TableName=TABLE,
        Key={"pk": {"S": f"USER#capability:{task_id}"}, "sk": {"S": f"TASK#{task_id}"}},
        ConsistentRead=True,
    )["Item"]
    assert int(item["ttl"]["N"]) == int(item["crt"]["N"]) + settings.task_ttl_seconds


def test_over_http_a_task_waits_for_its_answers_and_completes_after_tasks_update(base_url: str) -> None:
    task_id = result(rpc(base_url, "tools/call", {"name": "library_reshelve", "arguments": {"shelf": "poetry"}}))[
        "taskId"
    ]
    waiting = until(base_url, task_id, "input_required")
    assert set(waiting["inputRequests"]) == {"confirm", "who"}

    answers = {
        "who": {"action": "accept", "content": {"name": "Ada"}},
        "confirm": {"action": "accept", "content": {"confirm": True}},
    }
    ack = result(rpc(base_url, "tasks/update", {"taskId": task_id, "inputResponses": answers}))

    assert ack["resultType"] == "complete"
    assert not {"taskId", "status", "result", "error", "inputRequests"} & set(ack)
    done = until(base_url, task_id, "completed", "failed")
    assert done["result"]["structuredContent"] == {"shelf": "poetry", "by": "Ada"}


def test_over_http_tasks_update_past_the_callers_rate_limit_is_refused_with_a_retry_hint(
    core: Core, base_url: str
) -> None:
    core.runtime.limiter = CallLimiter(core.store, RateLimit(calls=2, window_seconds=60), mid_window(60))
    # A user of its own: the module's other tests counted calls from this address against the default limit.
    ada = {**WITH_TASKS, "openai/subject": "ada-rate-limited"}
    started = rpc(base_url, "tools/call", {"name": "library_reshelve", "arguments": {"shelf": "poetry"}}, ada)
    task_id = result(started)["taskId"]  # counted once
    until(base_url, task_id, "input_required", meta=ada)  # tasks/get reads only: not counted
    result(rpc(base_url, "tasks/update", {"taskId": task_id, "inputResponses": {"who": accept("name", "Ada")}}, ada))

    answers = {"confirm": accept("confirm", True)}
    refused = rpc(base_url, "tasks/update", {"taskId": task_id, "inputResponses": answers}, ada)

    error = refused.json()["error"]
    assert error["code"] == -32600
    assert (error["data"]["error"], error["data"]["retryable"]) == ("rate_limited", True)
    assert 1 <= error["data"]["retryAfter"] <= 60
    assert refused.headers["retry-after"] == str(error["data"]["retryAfter"])
    assert f"Try again in {error['data']['retryAfter']} s" in error["message"]
    waiting = until(base_url, task_id, "input_required", meta=ada)
    assert list(waiting["inputRequests"]) == ["confirm"]


def accept(name: str, value: object) -> dict[str, Any]:
    return {"action": "accept", "content": {name: value}}


def test_over_http_a_cancelled_task_settles_cancelled(base_url: str) -> None:
    task_id = result(rpc(base_url, "tools/call", {"name": "library_reshelve", "arguments": {"shelf": "poetry"}}))[
        "taskId"
    ]
    ack = result(rpc(base_url, "tasks/cancel", {"taskId": task_id}))
    assert ack["resultType"] == "complete"
    assert until(base_url, task_id, "cancelled")["status"] == "cancelled"


def test_tasks_requests_without_the_extension_with_an_unknown_id_or_a_wrong_mcp_name_are_refused(
    base_url: str,
) -> None:
    task_id = result(rpc(base_url, "tools/call", {"name": "library_count", "arguments": {}}))["taskId"]

    undeclared = rpc(base_url, "tasks/get", {"taskId": task_id}, meta=WITHOUT).json()["error"]
    unknown = rpc(base_url, "tasks/get", {"taskId": "no-such-task"}).json()["error"]
    misrouted = rpc(base_url, "tasks/get", {"taskId": task_id}, name="another-task")
    required = rpc(base_url, "tools/call", {"name": "library_reshelve", "arguments": {"shelf": "a"}}, meta=WITHOUT)

    assert undeclared["code"] == -32021
    assert undeclared["data"] == {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}
    assert unknown["code"] == -32602
    assert (misrouted.status_code, misrouted.json()["error"]["code"]) == (400, -32020)
    assert required.json()["error"]["code"] == -32021
    for removed in ("tasks/result", "tasks/list"):
        assert rpc(base_url, removed, {"taskId": task_id}).json()["error"]["code"] == -32601


def test_the_tool_list_says_which_tools_run_as_tasks_and_discovery_advertises_the_extension(
    base_url: str, core: Core
) -> None:
    listed = {t["name"]: t for t in result(rpc(base_url, "tools/list", {}))["tools"]}
    discovered = result(rpc(base_url, "server/discover", {}))

    for name, spec in core.runtime.tools.items():
        if name not in listed:  # app-only, and this client declares no MCP Apps extension
            assert spec.visibility == "private", name
            continue
        if spec.task_support == "forbidden":
            assert "execution" not in listed[name]
        else:
            assert listed[name]["execution"] == {"taskSupport": spec.task_support}
    supports = {listed[name]["execution"]["taskSupport"] for name in ("library_count", "library_lend")}
    assert supports == {"optional", "required"}
    assert TASKS_EXTENSION in discovered["capabilities"]["extensions"]
