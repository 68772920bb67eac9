"""Builds the MCP server (the SDK's low-level `Server`) from settings and the apps' tool books."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import anyio.to_thread
from mcp.server._otel import OpenTelemetryMiddleware
from mcp.server.caching import CacheHint
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    INVALID_PARAMS,
    INVALID_REQUEST,
    CallToolRequestParams,
    CompleteRequestParams,
    GetPromptRequestParams,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    SetLevelRequestParams,
    SubscribeRequestParams,
    UnsubscribeRequestParams,
)
from mcp_types.methods import CacheableMethod
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from opentelemetry import trace

import widget_mcp
from widget_mcp.admission import admit, request_caller
from widget_mcp.key_ring import REFRESH_SECONDS, KeyRing
from widget_mcp.secrets import read_secret
from widget_mcp.settings import Settings
from widget_mcp.toolkit.bundles import BundleManifest
from widget_mcp.toolkit.call import CallerClient, TaskLauncher
from widget_mcp.toolkit.client_surface import offered_tools
from widget_mcp.toolkit.errors import CatalogError
from widget_mcp.toolkit.inputs import ProtocolRefusal
from widget_mcp.toolkit.limits import CallLimiter
from widget_mcp.toolkit.request_state import RequestStates
from widget_mcp.toolkit.resources import UriTooLong, check_uri_length
from widget_mcp.toolkit.runtime import CallObserver, TemplateSettings, ToolRuntime
from widget_mcp.toolkit.tools import SignInDeclaration, ToolBook
from widget_mcp.toolkit.widgets import APP_MIME_TYPE
from widget_mcp.transport.caller import Caller
from widget_mcp.transport.request_info import RequestInfo
from widget_mcp.transport.resumption import SuspendCall
from widget_mcp.transport.subscriptions import SubscriptionRefused, Subscriptions
from widget_mcp.wire_extras import WireExtras

logger = logging.getLogger(__name__)

RESOURCE_NOT_FOUND = -32002
# The 2026-07-28 protocol requires `resultType` on results; earlier versions' serializers drop it.
COMPLETE = "complete"
# Lists are the same for every caller and change only with a deployment; a template's URI carries its
# content hash, so what it names never changes (or, pinned to a release, a shell whose hashed files the CDN keeps).
CACHE_HINTS: dict[CacheableMethod, CacheHint] = {
    "tools/list": CacheHint(ttl_ms=300_000, scope="public"),
    "prompts/list": CacheHint(ttl_ms=300_000, scope="public"),
    "resources/list": CacheHint(ttl_ms=300_000, scope="public"),
    "resources/templates/list": CacheHint(ttl_ms=300_000, scope="public"),
    "resources/read": CacheHint(ttl_ms=86_400_000, scope="public"),
}
APPS_EXTENSION = "io.modelcontextprotocol/ui"

INSTRUCTIONS = (
    "Tools here can show interactive widgets. Results carry ids (a gameId, a formId) that later calls take to "
    "continue a game or read a form's answers."
)


def build_runtime(
    settings: Settings,
    books: Iterable[ToolBook],
    *,
    observer: CallObserver | None = None,
    sync_in_thread: bool = False,
    limiter: CallLimiter | None = None,
    tasks: TaskLauncher | None = None,
) -> ToolRuntime:
    sign_in = SignInDeclaration(settings.oauth_scope_prefix) if settings.auth_mode == "oauth" else None
    manifest = BundleManifest.load(Path(settings.widget_manifest) if settings.widget_manifest else None)
    templates = TemplateSettings(
        base_url=settings.widget_base_url,
        origin=settings.widget_origin,
        widget_domain=settings.widget_domain,
        release=settings.widget_release,
    )
    return ToolRuntime(
        books,
        templates,
        manifest,
        observer=observer,
        sync_in_thread=sync_in_thread,
        sign_in=sign_in,
        anonymous_state=settings.anonymous_state,
        limiter=limiter,
        request_states=RequestStates(request_state_key(settings), settings.request_state_ttl_seconds),
        tasks=tasks,
    )


def request_state_key(settings: Settings, clock: Callable[[], float] = time.monotonic) -> KeyRing:
    """The key that signs input requests' requestState (and sessions and event ids), read on first use.

    A key in AWS (REQUEST_STATE_SECRET_ARN) is read again every REFRESH_SECONDS; the one it replaced still verifies
    for REFRESH_SECONDS + REQUEST_STATE_TTL_SECONDS, so every state signed before the rotation, on any instance,
    expires before its key is refused (key_ring.py)."""
    if settings.request_state_secret is not None:
        return KeyRing.fixed(settings.request_state_secret.get_secret_value().encode())
    arn = settings.request_state_secret_arn
    if arn is not None:
        grace = REFRESH_SECONDS + settings.request_state_ttl_seconds
        return KeyRing(lambda: read_secret(arn).encode(), grace_seconds=grace, clock=clock, what="requestState key")

    def process_key() -> bytes:
        logger.warning(
            "REQUEST_STATE_SECRET is not set: input requests are signed with a key made by this process alone, so a "
            "call resumed after a restart or on another instance is refused. Set REQUEST_STATE_SECRET (in AWS, "
            "REQUEST_STATE_SECRET_ARN)."
        )
        return os.urandom(32)

    return KeyRing(process_key, grace_seconds=0, refresh_seconds=None)


def opentelemetry_configured() -> bool:
    """Whether an OpenTelemetry tracer provider is installed (as ADOT's Lambda layer does before the handler
    loads, or OTEL_PYTHON_TRACER_PROVIDER names one); without one, spans are recorded nowhere."""
    provider = trace.get_tracer_provider()
    return not isinstance(provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider))


def _catalog_error(exc: CatalogError, protocol_version: str) -> MCPError:
    if exc.kind == "not_found":
        # 2026-07-28 (SEP-2164) answers an unknown resource with Invalid Params; earlier revisions with -32002.
        code = INVALID_PARAMS if protocol_version in MODERN_PROTOCOL_VERSIONS else RESOURCE_NOT_FOUND
        return MCPError(code=code, message=exc.message, data={"uri": exc.subject})
    if isinstance(exc, UriTooLong):
        return MCPError(code=INVALID_PARAMS, message=exc.message, data={"uri": exc.subject})  # its first 200
    return MCPError(code=INVALID_PARAMS, message=exc.message)


def caller_client(ctx: ServerRequestContext[Any]) -> CallerClient:
    """What the request says about its client: 2026-07-28 requests carry their capabilities every time; a
    2025-11-25 request, the ones its session kept (transport/resumption.py), whether or not its stream can carry
    input requests."""
    stateless = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
    if not stateless:
        info = ctx.request if isinstance(ctx.request, RequestInfo) else None
        if info is not None and info.session_capabilities is not None:
            kept, name = info.session_capabilities, info.session_client
            resumable = info.resumable_stream
            return CallerClient(ctx.protocol_version, False, kept, resumable_stream=resumable, client_name=name)
        return CallerClient(ctx.protocol_version, False, None)
    meta = ctx.meta or {}
    capabilities = meta.get(CLIENT_CAPABILITIES_META_KEY)
    client_info = meta.get(CLIENT_INFO_META_KEY)
    name = client_info.get("name") if isinstance(client_info, dict) else None
    name = name if isinstance(name, str) else None
    return CallerClient(
        ctx.protocol_version, stateless, capabilities if isinstance(capabilities, dict) else None, client_name=name
    )


def input_responses(responses: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A retried request's `inputResponses` in wire form, by key."""
    if not responses:
        return None
    return {k: v.model_dump(mode="json", by_alias=True, exclude_none=True) for k, v in responses.items()}


def build_server(
    runtime: ToolRuntime, *, name: str = "widget-mcp", subscriptions: Subscriptions | None = None
) -> Server[Any]:
    """A stateless server: every handler reads only the runtime (built once) and its own request.

    `subscriptions`: offer `resources/subscribe` (MCP 2025-11-25, with RESUMABLE_STREAMS) when an app declares a
    subscribable resource."""
    catalog = runtime.catalog
    trust_hints = runtime.sign_in is None  # with sign-in on, only a verified subject names a user

    def admitted(ctx: ServerRequestContext[Any]) -> None:
        """The caller's rate limit, counted before the request costs any work (admission.py)."""
        admit(runtime.limiter, ctx, trust_hints=trust_hints)

    async def list_tools(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> dict[str, Any]:
        # App-only tools are left out for a client known not to show widgets (toolkit/client_surface.py).
        return {"resultType": COMPLETE, "tools": offered_tools(runtime.tool_list, caller_client(ctx), ctx.meta)}

    async def call_tool(ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> dict[str, Any]:
        if params.name not in runtime.tools:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        info = ctx.request if isinstance(ctx.request, RequestInfo) else None
        client = caller_client(ctx)
        try:
            result = await runtime.call(
                params.name,
                params.arguments,
                ctx.meta,
                info.request_id if info else None,
                subject=info.subject if info else None,
                host_subject=info.host_subject if info else None,
                source=info.locate_source if info else None,
                client=client,
                input_responses=input_responses(params.input_responses),
                request_state=params.request_state,
                notify=info.events.notify if info is not None and info.events is not None else None,
                admitted=info.admitted if info is not None else False,
            )
        except ProtocolRefusal as refusal:
            raise MCPError(code=refusal.code, message=refusal.message, data=refusal.data) from None
        if client.resumable_stream and result.get("resultType") == "input_required":
            # The endpoint sends the requests on the call's stream, and keeps the call against its caller's quota.
            raise SuspendCall(result, request_caller(ctx, trust_hints=trust_hints))
        result.setdefault("resultType", COMPLETE)
        return result

    async def list_resources(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> dict[str, Any]:
        return {"resultType": COMPLETE, "resources": runtime.resource_list}

    async def list_resource_templates(
        ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> dict[str, Any]:
        # The apps' resource templates; every widget template has a fixed URI (listed by resources/list).
        return {"resultType": COMPLETE, "resourceTemplates": catalog.template_list}

    async def read_resource(ctx: ServerRequestContext[Any], params: ReadResourceRequestParams) -> dict[str, Any]:
        uri = str(params.uri)
        template = runtime.templates.get(uri)
        if template is None:
            admitted(ctx)  # an app's resource: its handler or template matching runs
            try:
                return {"resultType": COMPLETE, **await catalog.read(uri)}
            except CatalogError as exc:
                raise _catalog_error(exc, ctx.protocol_version) from None
        return {
            "resultType": COMPLETE,
            "contents": [
                {"uri": template.uri, "mimeType": APP_MIME_TYPE, "text": template.html, "_meta": template.meta}
            ],
        }

    async def list_prompts(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> dict[str, Any]:
        return {"resultType": COMPLETE, "prompts": catalog.prompt_list}

    async def get_prompt(ctx: ServerRequestContext[Any], params: GetPromptRequestParams) -> dict[str, Any]:
        admitted(ctx)
        info = ctx.request if isinstance(ctx.request, RequestInfo) else None
        try:
            result = await runtime.get_prompt(
                params.name,
                params.arguments,
                ctx.meta,
                subject=info.subject if info else None,
                host_subject=info.host_subject if info else None,
                client=caller_client(ctx),
                input_responses=input_responses(params.input_responses),
                request_state=params.request_state,
            )
        except CatalogError as exc:
            raise _catalog_error(exc, ctx.protocol_version) from None
        except ProtocolRefusal as refusal:
            raise MCPError(code=refusal.code, message=refusal.message, data=refusal.data) from None
        result.setdefault("resultType", COMPLETE)
        return result

    async def complete(ctx: ServerRequestContext[Any], params: CompleteRequestParams) -> dict[str, Any]:
        admitted(ctx)
        ref = params.ref.model_dump(by_alias=True)
        context = params.context.arguments if params.context and params.context.arguments else {}
        try:
            answer = catalog.complete(ref, params.argument.name, params.argument.value, context)
            return {"resultType": COMPLETE, **answer}
        except CatalogError as exc:
            raise _catalog_error(exc, ctx.protocol_version) from None

    def session_of(ctx: ServerRequestContext[Any], uri: str) -> tuple[str, RequestInfo]:
        info = ctx.request if isinstance(ctx.request, RequestInfo) else None
        if info is None or info.session_id is None:
            message = (
                "Subscriptions belong to a session: initialize with protocol version 2025-11-25 and send the "
                "Mcp-Session-Id it gave"
            )
            raise MCPError(code=INVALID_REQUEST, message=message)
        if not catalog.subscribable(uri):
            raise MCPError(code=INVALID_PARAMS, message=f"No changes of {uri} are notified here", data={"uri": uri})
        return info.session_id, info

    def checked_uri(ctx: ServerRequestContext[Any], uri: str) -> str:
        """`uri`, or Invalid Params past MAX_URI_LENGTH: before anything reads it (a template's matching included)."""
        try:
            return check_uri_length(uri)
        except CatalogError as exc:
            raise _catalog_error(exc, ctx.protocol_version) from None

    async def subscribe(ctx: ServerRequestContext[Any], params: SubscribeRequestParams) -> dict[str, Any]:
        assert subscriptions is not None
        admitted(ctx)
        uri = checked_uri(ctx, str(params.uri))
        try:
            session, info = session_of(ctx, uri)
            owner = Caller(info.subject, info.host_subject).owner
            caller = request_caller(ctx, trust_hints=trust_hints)
            await anyio.to_thread.run_sync(subscriptions.subscribe, session, uri, caller, owner)
        except SubscriptionRefused as refused:
            raise MCPError(code=INVALID_PARAMS, message=str(refused), data={"uri": refused.uri}) from None
        return {}

    async def unsubscribe(ctx: ServerRequestContext[Any], params: UnsubscribeRequestParams) -> dict[str, Any]:
        assert subscriptions is not None
        admitted(ctx)
        uri = checked_uri(ctx, str(params.uri))
        session, info = session_of(ctx, uri)
        owner = Caller(info.subject, info.host_subject).owner
        await anyio.to_thread.run_sync(subscriptions.unsubscribe, session, uri, owner)
        return {}

    # Prompts and completion are offered (and so advertised) only when an app declares some.
    async def set_log_level(ctx: ServerRequestContext[Any], params: SetLevelRequestParams) -> dict[str, Any]:
        # The 2025-11-25 handshake's logging/setLevel, accepted: a stateless server cannot keep the level for the
        # calls that follow, so those clients get a tool's log messages at every level (ToolCall.log).
        return {}

    server: Server[Any] = Server(
        name,
        cache_hints=CACHE_HINTS,
        version=widget_mcp.__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,  # type: ignore[arg-type]
        on_call_tool=call_tool,  # type: ignore[arg-type]
        on_list_resources=list_resources,  # type: ignore[arg-type]
        on_list_resource_templates=list_resource_templates,  # type: ignore[arg-type]
        on_read_resource=read_resource,  # type: ignore[arg-type]
        on_list_prompts=list_prompts if catalog.prompts else None,  # type: ignore[arg-type]
        on_get_prompt=get_prompt if catalog.prompts else None,  # type: ignore[arg-type]
        on_completion=complete if catalog.completes else None,  # type: ignore[arg-type]
        # Checks the `Mcp-Param-*` headers of tools that declare them (the endpoint asks, for 2026-07-28 calls).
        get_tool_input_schema=runtime.header_schema,
    )
    server.extensions[APPS_EXTENSION] = {"mimeTypes": [APP_MIME_TYPE]}
    if runtime.tasks is not None and any(t.task_support != "forbidden" for t in runtime.tools.values()):
        # Only a server with tools that run as tasks offers the extension and its requests.
        from widget_mcp.task_methods import register_task_methods
        from widget_mcp.toolkit.task_service import TaskService

        assert isinstance(runtime.tasks, TaskService), "the wiring gives the runtime a TaskService"

        register_task_methods(server, runtime, runtime.tasks)
    server.add_request_handler("logging/setLevel", SetLevelRequestParams, set_log_level)
    if subscriptions is not None and catalog.offers_subscriptions:  # then `resources.subscribe` is advertised
        server.add_request_handler("resources/subscribe", SubscribeRequestParams, subscribe)
        server.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, unsubscribe)
    if not opentelemetry_configured():
        # The SDK wraps every request in an OpenTelemetry span; with no tracer provider installed, that is
        # a no-op span that still costs each call its attributes, context and scope.
        server.middleware = [m for m in server.middleware if not isinstance(m, OpenTelemetryMiddleware)]
    # What the SDK's per-era models drop: the extensions in a 2025-11-25 `initialize`, and the tools'
    # top-level `securitySchemes` (wire_extras.py).
    server.middleware.append(WireExtras(runtime.tool_list, server.extensions))
    return server
