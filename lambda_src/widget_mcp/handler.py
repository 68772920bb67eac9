"""AWS Lambda entry point: `widget_mcp.handler.handler`.

Everything is built once at import (cold start, or before a SnapStart snapshot). MCP traffic (any method
on `/mcp`) goes straight from the API Gateway event to the endpoint; every other route goes through the
FastAPI app under Mangum, built on first use. Mangum's lifespan stays off: the endpoint keeps no
per-process protocol state, so no warm invocation can trip over a session manager started twice.

Under SnapStart the init also primes the snapshot (`wiring.prepare_snapshot`): synthetic requests of every
kind, so the first real requests after a restore import and build nothing.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Callable, Mapping
from functools import cache
from types import MappingProxyType
from typing import Any

from widget_mcp.lean_imports import DEFERRED_PACKAGES, defer_package_init

defer_package_init(*DEFERRED_PACKAGES)

from widget_mcp.settings import get_settings  # noqa: E402 - after the deferral on purpose
from widget_mcp.task_invokers import TASK_EVENT, LambdaInvoker, task_of  # noqa: E402
from widget_mcp.transport.lambda_events import EventError, parse_event, to_response  # noqa: E402
from widget_mcp.transport.replies import HttpReply  # noqa: E402
from widget_mcp.wiring import build_core, prepare_snapshot  # noqa: E402

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]
KeyedHandler = Callable[[dict[str, Any], Any, Mapping[str, Any]], dict[str, Any]]

# Log lines here are Powertools' JSON, which carries no thread or process: the records need not look them up.
logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
if sys.version_info >= (3, 12):
    logging.logAsyncioTasks = False
core = build_core(get_settings())
_logger = core.observability.logger
# `Logger.append_keys` looks its formatter up again on every call, through an attribute lookup that fails and
# raises inside Powertools (~5 µs); the formatter's own `append_keys` is what it then calls.
_append_log_keys = _logger.registered_formatter.append_keys
# One loop for the container's life, shared with Mangum (which uses the current loop).
_loop = asyncio.new_event_loop()
asyncio.set_event_loop(_loop)


@cache
def _asgi_handler() -> Any:
    from mangum import Mangum

    from widget_mcp.wiring import build_app

    return Mangum(build_app(core), lifespan="off")


def _bad_request() -> dict[str, Any]:
    return {"statusCode": 400, "headers": {"content-type": "application/json"}, "body": '{"error":"bad_request"}'}


def _handle(event: dict[str, Any], context: Any, log_keys: Mapping[str, Any] = MappingProxyType({})) -> dict[str, Any]:
    """`log_keys`: the invocation's keys for every log line, set with the correlation id in one update."""
    task = task_of(event) if TASK_EVENT in event else None
    if task is not None and core.tasks is not None:
        # An asynchronous invocation this function sent itself to run a round of a task (task_invokers.py).
        _append_log_keys(**log_keys, correlation_id=task.task_id)
        _loop.run_until_complete(core.tasks.run(task))
        return {"statusCode": 200, "body": ""}
    try:
        request = parse_event(event)
    except EventError as exc:
        _append_log_keys(**log_keys, correlation_id=None)
        _logger.warning("rejected an event that is not an API Gateway request", extra={"reason": str(exc)})
        return _bad_request()
    _append_log_keys(**log_keys, correlation_id=request.request_id)
    if request.path.rstrip("/") != "/mcp":
        # Mangum runs on the thread's current loop; make that ours, so it never creates (and leaks) another.
        asyncio.set_event_loop(_loop)
        try:
            response: dict[str, Any] = _asgi_handler()(event, context)
        except Exception:
            # The app answers its own failures (a JSON 500); what escapes is Mangum failing to read the event.
            _logger.exception("rejected an event the web app adapter could not translate")
            return _bad_request()
        return response
    # Refusals and cached answers come back at once; only what the server must serve runs on the loop.
    reply = core.endpoint.begin(request.method, request.headers, request.body, request.request_id, request.source_ip)
    if not isinstance(reply, HttpReply):
        reply = _loop.run_until_complete(reply)
    return to_response(reply, request.version)


def _with_lambda_context(handle: KeyedHandler) -> Handler:
    """Put the function, the invocation id and cold_start on every log line.

    Does what Powertools' `inject_lambda_context` does for these keys at a fraction of its per-call cost.
    """
    cold = True

    def wrapped(event: dict[str, Any], context: Any) -> dict[str, Any]:
        nonlocal cold
        if cold:
            _logger.append_keys(
                function_name=getattr(context, "function_name", None),
                function_memory_size=getattr(context, "memory_limit_in_mb", None),
                function_arn=getattr(context, "invoked_function_arn", None),
            )
        keys = {"function_request_id": getattr(context, "aws_request_id", None), "cold_start": cold}
        cold = False
        if _invoker is not None:
            # A task's rounds run in the version this invocation runs, through the alias it came by.
            _invoker.function = getattr(context, "invoked_function_arn", None)
        return handle(event, context, keys)

    return wrapped


_invoker = core.task_invoker if isinstance(core.task_invoker, LambdaInvoker) else None
handler = _with_lambda_context(_handle)
if core.observability.tracer is not None:
    handler = core.observability.tracer.capture_lambda_handler(handler)
if os.environ.get("AWS_LAMBDA_INITIALIZATION_TYPE") == "snap-start":
    # The snapshot holds the initialised process: synthetic requests through `_handle` pay there for what the
    # first requests after a restore would import or build (not through `handler`, so cold_start stays true).
    prepare_snapshot(core, _handle)
