"""Assembles the service from settings: the one place that knows every part. Used by Lambda, local mode and tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from widget_mcp.observability import Observability, ToolTelemetry
from widget_mcp.server import build_runtime, build_server, default_books
from widget_mcp.settings import Settings
from widget_mcp.toolkit.runtime import ToolRuntime
from widget_mcp.transport.endpoint import McpEndpoint
from widget_mcp.transport.guards import HostAllowlist

if TYPE_CHECKING:
    from fastapi import FastAPI


@dataclass(frozen=True)
class Core:
    """Everything that serves MCP, without the web framework around it."""

    settings: Settings
    observability: Observability
    runtime: ToolRuntime
    endpoint: McpEndpoint


def build_core(settings: Settings, *, concurrent: bool = False) -> Core:
    """`concurrent` is true for servers that handle requests in parallel (uvicorn), false for Lambda."""
    obs = Observability(settings)
    runtime = build_runtime(settings, default_books(), observer=ToolTelemetry(obs), sync_in_thread=concurrent)
    endpoint = McpEndpoint(
        build_server(runtime),
        allowed_hosts=HostAllowlist(settings.allowed_hosts),
        max_body_bytes=settings.max_body_bytes,
        max_json_depth=settings.max_json_depth,
    )
    return Core(settings, obs, runtime, endpoint)


def build_app(core: Core, *, widget_dir: Path | None = None) -> FastAPI:
    from widget_mcp.app import create_app

    return create_app(
        core.endpoint,
        max_body_bytes=core.settings.max_body_bytes,
        tool_count=len(core.runtime.tools),
        widget_dir=widget_dir,
    )
