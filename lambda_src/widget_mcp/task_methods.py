"""The tasks extension's requests on the SDK's server: `tasks/get`, `tasks/update` and `tasks/cancel`, served from
the state store (toolkit/task_service.py), and the extension advertised in `server/discover`.

Each request must declare the extension in its own clientCapabilities (MCP 2026-07-28 carries them on every
request); without it, -32021. The caller is resolved as for `tools/call`, so a task is found only by its owner.
`tasks/result` and `tasks/list` (the 2025-11-25 draft's) are not served: the result is inlined in `tasks/get`, and a
caller without identity could not list tasks anyway.
"""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.shared.exceptions import MCPError
from mcp_types import CLIENT_CAPABILITIES_META_KEY, INTERNAL_ERROR, RequestParams
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ConfigDict, Field

from widget_mcp.admission import rate_limited
from widget_mcp.storage.documents import StoreUnavailable
from widget_mcp.toolkit.call import CallerClient
from widget_mcp.toolkit.errors import RateLimited
from widget_mcp.toolkit.inputs import ProtocolRefusal
from widget_mcp.toolkit.principal import Principal, resolve_principal
from widget_mcp.toolkit.runtime import ToolRuntime
from widget_mcp.toolkit.task_service import TaskService
from widget_mcp.toolkit.tasks import TASKS_EXTENSION, TasksUndeclared
from widget_mcp.transport.request_info import RequestInfo

logger = logging.getLogger(__name__)

# A task id as the wire carries it; the service refuses what it never issued.
_TASK_ID = Field(alias="taskId", max_length=200)


class TaskParams(RequestParams):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    task_id: str = _TASK_ID


class TaskUpdateParams(TaskParams):
    input_responses: dict[str, Any] = Field(default_factory=dict, alias="inputResponses", max_length=64)


def register_task_methods(server: Server[Any], runtime: ToolRuntime, tasks: TaskService) -> None:
    server.extensions[TASKS_EXTENSION] = {}

    def caller(ctx: ServerRequestContext[Any], method: str) -> tuple[Principal, str | None]:
        stateless = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        capabilities = (ctx.meta or {}).get(CLIENT_CAPABILITIES_META_KEY) if stateless else None
        client = CallerClient(ctx.protocol_version, stateless, capabilities if isinstance(capabilities, dict) else None)
        if not client.declares_extension(TASKS_EXTENSION):
            raise _error(TasksUndeclared(method))
        info = ctx.request if isinstance(ctx.request, RequestInfo) else None
        principal = resolve_principal(
            ctx.meta,
            info.subject if info else None,
            info.host_subject if info else None,
            trust_hints=runtime.sign_in is None,
        )
        return principal, info.source if info else None

    async def get(ctx: ServerRequestContext[Any], params: TaskParams) -> dict[str, Any]:
        principal, source = caller(ctx, "tasks/get")
        try:
            return tasks.get(principal, source, params.task_id)
        except ProtocolRefusal as refusal:
            raise _error(refusal) from None
        except StoreUnavailable as exc:
            raise _unavailable(exc) from None

    async def update(ctx: ServerRequestContext[Any], params: TaskUpdateParams) -> dict[str, Any]:
        principal, source = caller(ctx, "tasks/update")
        try:
            tasks.update(principal, source, params.task_id, params.input_responses)
        except ProtocolRefusal as refusal:
            raise _error(refusal) from None
        except RateLimited as exc:
            raise rate_limited(exc) from None
        except StoreUnavailable as exc:
            raise _unavailable(exc) from None
        return {"resultType": "complete"}

    async def cancel(ctx: ServerRequestContext[Any], params: TaskParams) -> dict[str, Any]:
        principal, source = caller(ctx, "tasks/cancel")
        try:
            tasks.cancel(principal, source, params.task_id)
        except ProtocolRefusal as refusal:
            raise _error(refusal) from None
        except StoreUnavailable as exc:
            raise _unavailable(exc) from None
        return {"resultType": "complete"}

    server.add_request_handler("tasks/get", TaskParams, get)
    server.add_request_handler("tasks/update", TaskUpdateParams, update)
    server.add_request_handler("tasks/cancel", TaskParams, cancel)


def _error(refusal: ProtocolRefusal) -> MCPError:
    return MCPError(code=refusal.code, message=refusal.message, data=refusal.data)


def _unavailable(exc: StoreUnavailable) -> MCPError:
    logger.warning("tasks: %s", exc)
    return MCPError(code=INTERNAL_ERROR, message="The task store could not be reached; try again shortly.")
