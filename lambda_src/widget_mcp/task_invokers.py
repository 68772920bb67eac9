"""How a task's next round gets an invocation of its own (toolkit/task_service.py): on AWS Lambda an asynchronous
invocation of this same function, which the handler recognises by its event (`task_event`); locally a thread of
the server, which runs the same `TaskService.run` on a loop of its own.

On Lambda an invocation ends when its response is returned, so work cannot outlive the request that started it
in the same container; an asynchronous invocation (`InvocationType=Event`) is queued by Lambda and runs on any
container, with the function's timeout as its limit. Lambda retries a failed asynchronous invocation unless told
not to: the stack sets no retries on the alias, and a lost round is reported `failed` when its deadline passes.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from widget_mcp.toolkit.tasks import TaskRef


class LambdaClient(Protocol):
    """The part of boto3's Lambda client used here."""

    def invoke(self, *, FunctionName: str, InvocationType: str, Payload: bytes) -> Any: ...  # noqa: N803 - boto3's


# The key of a worker invocation's event; API Gateway events never carry it.
TASK_EVENT = "widget-mcp/task"

RunRound = Callable[[TaskRef], Awaitable[None]]


def task_event(task: TaskRef) -> dict[str, Any]:
    return {TASK_EVENT: {"partition": task.partition, "taskId": task.task_id}}


def task_of(event: Mapping[str, Any]) -> TaskRef | None:
    """The task a worker invocation's event names, or None for any other event."""
    named = event.get(TASK_EVENT)
    if not isinstance(named, Mapping):
        return None
    partition, task_id = named.get("partition"), named.get("taskId")
    if not isinstance(partition, str) or not isinstance(task_id, str):
        return None
    return TaskRef(partition, task_id)


class LocalInvoker:
    """Runs each round in a daemon thread of this process (the local server and tests): the same code path as a
    worker invocation, `TaskService.run`, on a loop of the thread's own."""

    def __init__(self, run: RunRound) -> None:
        self._run = run
        self._threads: list[threading.Thread] = []

    def invoke(self, task: TaskRef) -> None:
        thread = threading.Thread(target=asyncio.run, args=(self._run(task),), name=f"task-{task.task_id}", daemon=True)
        self._threads = [t for t in self._threads if t.is_alive()]
        self._threads.append(thread)
        thread.start()

    def join(self, timeout: float) -> None:
        """Wait for the rounds running now (tests end with this, so no thread outlives them)."""
        for thread in list(self._threads):
            thread.join(timeout)


class LambdaInvoker:
    """Sends each round as an asynchronous invocation of `function`: the function ARN the current invocation was
    invoked as (the handler sets it on each invocation), so the round runs the same version, through the alias
    the stack lets the function invoke."""

    def __init__(self, client: Callable[[], LambdaClient]) -> None:
        self._factory = client
        self._client: LambdaClient | None = None
        self.function: str | None = None

    def invoke(self, task: TaskRef) -> None:
        if self.function is None:
            raise RuntimeError("no function to invoke: the handler sets it from the invocation's context")
        if self._client is None:
            self._client = self._factory()
        payload = json.dumps(task_event(task)).encode()
        self._client.invoke(FunctionName=self.function, InvocationType="Event", Payload=payload)


def default_lambda_client() -> LambdaClient:
    """A client from the standard environment (region, credentials, AWS_ENDPOINT_URL_LAMBDA)."""
    import boto3
    from botocore.config import Config

    config = Config(connect_timeout=1, read_timeout=2, retries={"mode": "standard", "total_max_attempts": 3})
    client: LambdaClient = boto3.client("lambda", config=config)
    return client
