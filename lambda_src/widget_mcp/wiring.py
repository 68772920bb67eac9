"""Assembles the service from settings: the one place that knows every part. Used by Lambda, local mode and tests."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from widget_mcp.apps.books import declare_tasks
from widget_mcp.auth.host_tokens import HostTokens
from widget_mcp.log_refs import SessionRefs
from widget_mcp.observability import Observability, ToolTelemetry
from widget_mcp.secrets import secret_source
from widget_mcp.server import build_runtime, build_server
from widget_mcp.settings import Settings
from widget_mcp.storage.documents import DocumentStore
from widget_mcp.toolkit.call import ToolCall
from widget_mcp.toolkit.limits import CallLimiter, RateLimit
from widget_mcp.toolkit.runtime import CallObserver, ToolRuntime
from widget_mcp.toolkit.tools import ToolBook, WarmUp
from widget_mcp.transport.endpoint import McpEndpoint
from widget_mcp.transport.guards import CorsPolicy, HostAllowlist
from widget_mcp.transport.host_identity import HostIdentity

if TYPE_CHECKING:
    from fastapi import FastAPI
    from starlette.routing import BaseRoute

    from widget_mcp.auth.setup import SignIn
    from widget_mcp.task_invokers import LambdaInvoker, LocalInvoker
    from widget_mcp.toolkit.task_service import TaskService
    from widget_mcp.transport.resumption import Streams
    from widget_mcp.transport.subscriptions import Subscriptions


@dataclass(frozen=True)
class Core:
    """Everything that serves MCP, without the web framework around it."""

    settings: Settings
    observability: Observability
    runtime: ToolRuntime
    endpoint: McpEndpoint
    store: DocumentStore
    sign_in: SignIn | None = None
    # The runtime's call observer (logs and metrics per tool call), which snapshot priming silences.
    calls: MutableObserver | None = None
    # The apps' warm-up calls (`ToolBook.warm_up`), in registry order: snapshot priming makes each one.
    warm_ups: tuple[WarmUp, ...] = ()
    # Those that keep state (`warm_up_keeps_state`): made on the apps built afresh on an in-memory store.
    stateful_warm_ups: tuple[WarmUp, ...] = ()
    # Tasks (toolkit/task_service.py) and what sends their rounds to an invocation of their own.
    tasks: TaskService | None = None
    task_invoker: LocalInvoker | LambdaInvoker | None = None

    def sign_in_routes(self) -> list[BaseRoute]:
        """The metadata (and registration) routes sign-in adds beside `/mcp`; none when it is off."""
        if self.sign_in is None:
            return []
        from widget_mcp.auth.account_routes import account_routes
        from widget_mcp.auth.routes import sign_in_routes

        hosts = HostAllowlist(self.settings.allowed_hosts)
        cors = CorsPolicy(self.settings.cors_origins)
        return [
            *sign_in_routes(self.sign_in.gate, hosts, self.sign_in.facade, cors, self.sign_in.flow),
            *account_routes(self.sign_in.gate, self.runtime, hosts, cors),
        ]


class MutableObserver:
    """Passes each tool call's report to `inner`, except while `muted`: synthetic calls leave no logs or metrics."""

    def __init__(self, inner: CallObserver) -> None:
        self.inner = inner
        self.muted = False

    def started(self, tool: str, call: ToolCall) -> None:
        if not self.muted:
            self.inner.started(tool, call)

    def finished(self, tool: str, error_code: str | None, seconds: float) -> None:
        if not self.muted:
            self.inner.finished(tool, error_code, seconds)


def build_books(settings: Settings, store: DocumentStore) -> list[ToolBook]:
    """The books of the apps `APPS` names (every app of `widget_mcp.apps.registry.APPS` when unset), built on these
    settings and store."""
    from widget_mcp.apps.books import AppContext, load_books
    from widget_mcp.apps.registry import CONFORMANCE_APP, select_apps

    served = select_apps(settings.apps)
    apps = (*served, CONFORMANCE_APP) if settings.conformance else served
    return load_books(AppContext(settings, store), apps)


def build_core(settings: Settings, *, concurrent: bool = False, store: DocumentStore | None = None) -> Core:
    """`concurrent` is true for servers that handle requests in parallel (uvicorn), false for Lambda.

    Without `store`, state lives in the DynamoDB table TABLE_NAME, reached through boto3's standard
    environment (AWS_ENDPOINT_URL_DYNAMODB points it at moto or DynamoDB Local).
    """
    obs = Observability(settings)
    telemetry = ToolTelemetry(obs)
    if store is None:
        from widget_mcp.storage.dynamodb import DynamoDbDocumentStore, default_client

        store = DynamoDbDocumentStore(
            default_client,
            settings.table_name,
            on_capacity=telemetry.capacity,
            max_item_bytes=settings.max_item_bytes,
        )
    calls = MutableObserver(telemetry)
    books = build_books(settings, store)
    limiter = None
    if settings.rate_limit_calls > 0:
        limiter = CallLimiter(store, RateLimit(settings.rate_limit_calls, settings.rate_limit_window_seconds))
    # Tasks only where an app declares a tool that may run as one: other deployments load none of it.
    tasks: TaskService | None = None
    task_invoker: LocalInvoker | LambdaInvoker | None = None
    if declare_tasks(books):
        from widget_mcp.toolkit.task_service import TaskService

        tasks = TaskService(
            store,
            ttl_seconds=settings.task_ttl_seconds,
            work_seconds=settings.task_work_seconds,
            quota=settings.quota_live_tasks,
        )
    runtime = build_runtime(settings, books, observer=calls, sync_in_thread=concurrent, limiter=limiter, tasks=tasks)
    telemetry.refs = SessionRefs(runtime.request_states.sign)  # the requestState key, under a label of its own
    if tasks is not None:
        tasks.runner = runtime
        tasks.invoker = task_invoker = task_invoker_for(tasks)
    sign_in = None
    if settings.auth_mode == "oauth":
        from widget_mcp.auth.setup import build_sign_in

        sign_in = build_sign_in(settings, runtime.protected_tools())
    # Read from AWS when the first host token arrives (HOST_TOKEN_SECRET_ARN), never at cold start.
    host_secret = secret_source(settings.host_token_secret, settings.host_token_secret_arn)
    streams, subscriptions = streams_for(settings, store, runtime)
    endpoint = McpEndpoint(
        build_server(runtime, subscriptions=subscriptions),
        allowed_hosts=HostAllowlist(settings.allowed_hosts),
        max_body_bytes=settings.max_body_bytes,
        max_json_depth=settings.max_json_depth,
        max_batch_messages=settings.max_batch_messages,
        gate=sign_in.gate if sign_in else None,
        cors=CorsPolicy(settings.cors_origins),
        inline_tools=runtime.runs_inline,
        fixed_resource=runtime.fixed_resource,
        host_identity=HostIdentity(
            HostTokens(host_secret) if host_secret is not None else None,
            runtime.widget_callable,
            sign_in=sign_in is not None,
        ),
        trusted_proxy_hops=settings.trusted_proxy_hops,
        streams=streams,
        subscriptions=subscriptions,
        limiter=limiter,
    )
    warm = [
        (b.warm_up, b.warm_up_keeps_state) for b in books if b.warm_up is not None and b.warm_up[0] in runtime.tools
    ]
    warm_ups = tuple(call for call, keeps_state in warm if not keeps_state)
    stateful = tuple(call for call, keeps_state in warm if keeps_state)
    return Core(settings, obs, runtime, endpoint, store, sign_in, calls, warm_ups, stateful, tasks, task_invoker)


def streams_for(
    settings: Settings, store: DocumentStore, runtime: ToolRuntime, *, clock: Callable[[], float] = time.time
) -> tuple[Streams | None, Subscriptions | None]:
    """Resumable streams for 2025-11-25 clients' input requests, when RESUMABLE_STREAMS is on (signed with the
    requestState key); and, when an app declares a subscribable resource, the subscriptions to it, which the
    runtime's `call.resource_updated` then reaches."""
    if not settings.resumable_streams:
        return None, None
    from widget_mcp.transport.resumption import Streams
    from widget_mcp.transport.subscriptions import Subscriptions

    streams = Streams(
        store,
        runtime.request_states,
        ttl_seconds=settings.request_state_ttl_seconds,
        work_seconds=settings.task_work_seconds,
        clock=clock,
        kept_quota=settings.quota_waiting_calls,
    )
    if not runtime.catalog.offers_subscriptions:
        return streams, None
    subscriptions = runtime.changes = Subscriptions(store, clock)
    return streams, subscriptions


def task_invoker_for(tasks: TaskService) -> LocalInvoker | LambdaInvoker:
    """On AWS Lambda (which sets AWS_LAMBDA_FUNCTION_NAME) a task's round is an asynchronous invocation of the
    function; anywhere else a thread of this process runs the same code."""
    from widget_mcp.task_invokers import LambdaInvoker, LocalInvoker, default_lambda_client

    if os.environ.get("AWS_LAMBDA_FUNCTION_NAME"):
        return LambdaInvoker(default_lambda_client)
    return LocalInvoker(tasks.run)


# Libraries the apps import on first use, to keep cold starts short; a SnapStart snapshot should hold them. And
# `encodings.idna`: the first connection to a host name (DynamoDB's endpoint) encodes it with the IDNA codec.
DEFERRED_IMPORTS = ("jsonschema", "jsonschema.validators", "encodings.idna")
PRIMING_VERSION = "2025-11-25"
# Who a warm-up that keeps state runs as, on its in-memory store (a verified subject: no hint, no table).
WARM_UP_SUBJECT = "warm-up"
# Priming's `initialize` asks for the revision before: a 2025-11-25 one would be given an `Mcp-Session-Id` (with
# resumable streams on), signed with the requestState key, which would then be read into the snapshot and kept there.
PRIMING_INITIALIZE_VERSION = "2025-06-18"

LambdaHandler = Callable[[dict[str, Any], Any], dict[str, Any]]


def prepare_snapshot(core: Core, handle: LambdaHandler | None = None) -> None:
    """Do before a SnapStart snapshot what would otherwise happen on the first calls after restore.

    Every app's warm-up call (`ToolBook.warm_up`, a call that keeps no state) runs on the runtime, which loads
    what its handlers import. With `handle` (the Lambda handler), synthetic API Gateway requests then go through
    it: initialize, tools/list, resources/list and templates/list, resources/read of each template, ping and the
    first warm-up a caller without sign-in may make, in both protocol eras, and GET /healthz and the OAuth
    metadata through the web app (which builds it). Tool telemetry and the rate limit are off meanwhile. A failure
    here is logged, never raised: priming only saves time. It reads no secret and issues no session: keys are read
    after the restore, on first use, so none is in the snapshot and a rotation reaches every instance (key_ring.py).
    """
    connect = getattr(core.store, "connect", None)
    if connect is not None:
        connect()
    for name in DEFERRED_IMPORTS:
        importlib.import_module(name)
    logger = core.observability.logger
    if core.calls is not None:
        core.calls.muted = True
    # Warm-up calls of tools that use state would count against a caller's rate limit: a write, and no caller.
    limiter, core.runtime.limiter = core.runtime.limiter, None
    try:
        _warm_up_apps(core)
        if handle is None:
            return
        for event in _priming_events(core):
            reply = handle(event, None)
            if reply.get("statusCode") not in (200, 404):
                logger.warning("a snapshot priming request was not answered", extra={"route": event["routeKey"]})
    except Exception:
        logger.exception("priming the snapshot failed; the first requests after restore will do it")
    finally:
        logger.set_correlation_id(None)  # the priming requests' id must not label what the restored process logs
        core.runtime.limiter = limiter
        if core.calls is not None:
            core.calls.muted = False


def _warm_up_apps(core: Core) -> None:
    """Each app's warm-up call, straight on the runtime (the sign-in gate would turn some away), on a loop of its
    own that ends with it. Those that keep state run on the apps built again on an in-memory store, as a verified
    user (so neither ANONYMOUS_STATE=refuse nor sign-in turns them away before their handler runs); the failures
    they log are what `make dev` reports (local/load_check.py)."""
    loop = asyncio.new_event_loop()
    try:
        for tool, arguments in core.warm_ups:
            loop.run_until_complete(core.runtime.call(tool, arguments, None, "snapshot-priming"))
        if core.stateful_warm_ups:
            from widget_mcp.storage.memory import InMemoryDocumentStore

            scratch = build_runtime(core.settings, build_books(core.settings, InMemoryDocumentStore()))
            for tool, arguments in core.stateful_warm_ups:
                call = scratch.call(tool, arguments, None, "snapshot-priming", subject=WARM_UP_SUBJECT)
                loop.run_until_complete(call)
    finally:
        loop.close()


def _wire_warm_up(core: Core) -> tuple[str, dict[str, Any]] | None:
    """The first warm-up call the endpoint answers without sign-in: it primes the tools/call path."""
    protected = core.runtime.protected_tools()
    return next(((tool, dict(arguments)) for tool, arguments in core.warm_ups if tool not in protected), None)


def _priming_events(core: Core) -> list[dict[str, Any]]:
    host = next(iter(core.settings.allowed_hosts), "localhost").strip().lower()
    if host.endswith(":*"):
        host = host[:-2]

    def event(method: str, path: str, body: dict[str, Any] | None = None, **headers: str) -> dict[str, Any]:
        all_headers = {"host": host, "accept": "application/json", "content-type": "application/json", **headers}
        return {
            "version": "2.0",
            "routeKey": f"{method} {path}",
            "rawPath": path,
            "rawQueryString": "",
            "headers": all_headers,
            "requestContext": {
                "http": {"method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": "127.0.0.1"},
                "requestId": "snapshot-priming",
                "routeKey": f"{method} {path}",
                "stage": "$default",
                "domainName": host,
            },
            "body": json.dumps(body) if body is not None else "",
            "isBase64Encoded": False,
        }

    warm_up = _wire_warm_up(core)
    tool = warm_up[0] if warm_up else ""
    requests: list[tuple[str, dict[str, Any]]] = [
        ("ping", {}),
        ("tools/list", {}),
        ("resources/list", {}),
        ("resources/templates/list", {}),
        *(("resources/read", {"uri": uri}) for uri in core.runtime.templates),
    ]
    if warm_up is not None:
        requests.append(("tools/call", {"name": tool, "arguments": warm_up[1]}))
    init = {
        "protocolVersion": PRIMING_INITIALIZE_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "snapshot", "version": "1"},
    }
    events = [event("POST", "/mcp", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})]
    envelope = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    for number, (method, params) in enumerate(requests, start=1):
        message = {"jsonrpc": "2.0", "id": number, "method": method, "params": params}
        events.append(event("POST", "/mcp", message, **{"mcp-protocol-version": PRIMING_VERSION}))
        modern = {**message, "params": {**params, "_meta": envelope}}
        routing = {"mcp-protocol-version": "2026-07-28", "mcp-method": method}
        if method == "tools/call":
            routing["mcp-name"] = tool
        elif method == "resources/read":
            routing["mcp-name"] = params["uri"]
        events.append(event("POST", "/mcp", modern, **routing))
    events.append(event("GET", "/healthz"))
    events.append(event("GET", "/.well-known/oauth-protected-resource"))
    if core.sign_in is not None:
        events.append(event("GET", "/.well-known/oauth-authorization-server"))
    return events


def build_app(core: Core, *, widget_dir: Path | None = None) -> FastAPI:
    from widget_mcp.app import create_app
    from widget_mcp.publishing.challenges import challenge_routes

    return create_app(
        core.endpoint,
        max_body_bytes=core.settings.max_body_bytes,
        tool_count=len(core.runtime.tools),
        widget_dir=widget_dir,
        widget_hosts=HostAllowlist(core.settings.allowed_hosts),
        extra_routes=[*core.sign_in_routes(), *challenge_routes(core.settings)],
    )
