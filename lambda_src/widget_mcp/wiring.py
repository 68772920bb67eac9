"""Assembles the service from settings: the one place that knows every part. Used by Lambda, local mode and tests."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from widget_mcp.observability import Observability, ToolTelemetry
from widget_mcp.server import build_runtime, build_server
from widget_mcp.settings import Settings
from widget_mcp.storage.documents import DocumentStore
from widget_mcp.toolkit.runtime import ToolRuntime
from widget_mcp.toolkit.tools import ToolBook
from widget_mcp.transport.endpoint import McpEndpoint
from widget_mcp.transport.guards import CorsPolicy, HostAllowlist

if TYPE_CHECKING:
    from fastapi import FastAPI
    from starlette.routing import BaseRoute

    from widget_mcp.auth.setup import SignIn


@dataclass(frozen=True)
class Core:
    """Everything that serves MCP, without the web framework around it."""

    settings: Settings
    observability: Observability
    runtime: ToolRuntime
    endpoint: McpEndpoint
    store: DocumentStore
    sign_in: SignIn | None = None

    def sign_in_routes(self) -> list[BaseRoute]:
        """The metadata (and registration) routes sign-in adds beside `/mcp`; none when it is off."""
        if self.sign_in is None:
            return []
        from widget_mcp.auth.routes import sign_in_routes

        return sign_in_routes(self.sign_in.gate, HostAllowlist(self.settings.allowed_hosts), self.sign_in.facade)


def build_books(settings: Settings, store: DocumentStore) -> list[ToolBook]:
    """The books of the apps listed in `widget_mcp.apps.registry.APPS`, built on these settings and store."""
    from widget_mcp.apps.registry import AppContext, load_books

    return load_books(AppContext(settings, store))


def build_core(settings: Settings, *, concurrent: bool = False, store: DocumentStore | None = None) -> Core:
    """`concurrent` is true for servers that handle requests in parallel (uvicorn), false for Lambda.

    Without `store`, state lives in the DynamoDB table TABLE_NAME, reached through boto3's standard
    environment (AWS_ENDPOINT_URL_DYNAMODB points it at moto or DynamoDB Local).
    """
    obs = Observability(settings)
    telemetry = ToolTelemetry(obs)
    if store is None:
        from widget_mcp.storage.dynamodb import DynamoDbDocumentStore, default_client

        store = DynamoDbDocumentStore(default_client, settings.table_name, on_capacity=telemetry.capacity)
    runtime = build_runtime(settings, build_books(settings, store), observer=telemetry, sync_in_thread=concurrent)
    sign_in = None
    if settings.auth_mode == "oauth":
        from widget_mcp.auth.setup import build_sign_in

        sign_in = build_sign_in(settings, runtime.protected_tools())
    endpoint = McpEndpoint(
        build_server(runtime),
        allowed_hosts=HostAllowlist(settings.allowed_hosts),
        max_body_bytes=settings.max_body_bytes,
        max_json_depth=settings.max_json_depth,
        gate=sign_in.gate if sign_in else None,
        cors=CorsPolicy(settings.cors_origins),
    )
    return Core(settings, obs, runtime, endpoint, store, sign_in)


# Libraries the apps import on first use, to keep cold starts short; a SnapStart snapshot should hold them.
DEFERRED_IMPORTS = ("jsonschema", "jsonschema.validators")


def prepare_snapshot(core: Core) -> None:
    """Do before a SnapStart snapshot what would otherwise happen on the first calls after restore."""
    connect = getattr(core.store, "connect", None)
    if connect is not None:
        connect()
    for name in DEFERRED_IMPORTS:
        importlib.import_module(name)


def build_app(core: Core, *, widget_dir: Path | None = None) -> FastAPI:
    from widget_mcp.app import create_app

    return create_app(
        core.endpoint,
        max_body_bytes=core.settings.max_body_bytes,
        tool_count=len(core.runtime.tools),
        widget_dir=widget_dir,
        extra_routes=core.sign_in_routes(),
    )
