"""Tasks (the MCP `io.modelcontextprotocol/tasks` extension): a tool call that answers at once with a task id,
while its work runs on and the client polls `tasks/get` for the outcome.

A tool declares `task_support="optional"` or `"required"`; its handler calls `call.background()` where the work
may leave the request. In a call from a client that declared the extension, that ends the request with a
`CreateTaskResult`: the task is stored first, then a later invocation runs the handler again from the top
(`background()` then returns at once), like a round of input requests. Without the extension, `background()`
returns at once and the call runs to its end in the request (a `required` tool is refused instead, -32021).

Nothing here holds a connection or a process: the task record lives in the state store (task_records.py), so
any instance answers `tasks/get`, and the work runs wherever the invoker sends it (an asynchronous invocation of
the function itself on AWS Lambda; a thread of the local server in `make dev` and tests).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from widget_mcp.toolkit.inputs import INVALID_PARAMS, MISSING_REQUIRED_CLIENT_CAPABILITY, ProtocolRefusal

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled"})
INTERNAL_ERROR = -32603


class Backgrounded(Exception):
    """Raised by `ToolCall.background` in a call that becomes a task; the runtime answers with the task.

    Let it propagate: a handler that catches it runs the rest of its work in the request after all."""


class TasksRequired(ProtocolRefusal):
    """A tool that only runs as a task was called by a client that did not declare the tasks extension."""

    def __init__(self, tool: str) -> None:
        super().__init__(
            MISSING_REQUIRED_CLIENT_CAPABILITY,
            f"The tool {tool!r} runs only as a task, and this request's clientCapabilities do not declare the "
            f"{TASKS_EXTENSION!r} extension.",
            {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}},
        )
        self.tool = tool


class TasksUndeclared(ProtocolRefusal):
    """A `tasks/*` request whose clientCapabilities do not declare the tasks extension."""

    def __init__(self, method: str) -> None:
        super().__init__(
            MISSING_REQUIRED_CLIENT_CAPABILITY,
            f"{method} needs the {TASKS_EXTENSION!r} extension declared in this request's clientCapabilities.",
            {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}},
        )
        self.method = method


class TaskNotFound(ProtocolRefusal):
    """No task of this caller has this id: never created, expired, or someone else's (no existence leak)."""

    def __init__(self, task_id: object) -> None:
        super().__init__(
            INVALID_PARAMS,
            "No such task: it does not exist, has expired, or belongs to someone else.",
            {"taskId": task_id if isinstance(task_id, str) else None},
        )
        self.task_id = task_id


@dataclass(frozen=True, slots=True)
class TaskRef:
    """Where a task's record is: the store partition of its owner, and its id. A worker invocation carries it."""

    partition: str
    task_id: str
