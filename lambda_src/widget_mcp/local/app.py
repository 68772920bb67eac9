"""The local-mode app: the service's FastAPI app plus the widget files, the playground and the event feed."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.routing import BaseRoute, Route, request_response
from starlette.types import ASGIApp

from widget_mcp.app import create_app
from widget_mcp.local.events import EventFeed
from widget_mcp.local.legal_routes import legal_routes
from widget_mcp.local.mcp_tap import McpEventTap
from widget_mcp.local.paths import REPO, WIDGET_DIST
from widget_mcp.local.playground import PlaygroundPage
from widget_mcp.publishing.challenges import challenge_routes
from widget_mcp.transport.cross_origin import HostChecked, browser_route
from widget_mcp.transport.guards import CorsPolicy, HostAllowlist
from widget_mcp.wiring import Core

__all__ = ["REPO", "WIDGET_DIST", "build_local_app"]


async def _to_playground(request: Request) -> RedirectResponse:
    """Someone opening the server's root in a browser wants the playground."""
    return RedirectResponse("/playground", status_code=307)


def build_local_app(
    core: Core,
    *,
    widget_dir: Path = WIDGET_DIST,
    feed: EventFeed | None = None,
    extra_routes: Sequence[BaseRoute] = (),
) -> FastAPI:
    """`extra_routes`: e.g. the local issuer's, when `make dev` runs with sign-in."""
    events = feed or EventFeed()
    sign_in = core.settings.auth_mode == "oauth"
    hosts = HostAllowlist(core.settings.allowed_hosts)
    playground = PlaygroundPage(widget_dir / "manifest.json", sign_in=sign_in)

    def tap(mcp: ASGIApp) -> ASGIApp:
        return McpEventTap(mcp, events, core.runtime.tools)

    app = create_app(
        core.endpoint,
        max_body_bytes=core.settings.max_body_bytes,
        tool_count=len(core.runtime.tools),
        widget_dir=widget_dir,
        widget_hosts=hosts,
        mcp_tap=tap,
        extra_routes=[
            Route("/", _to_playground, methods=["GET"]),
            # Same-origin pages and files, but readable by a DNS-rebinding page unless its Host is refused.
            Route("/playground", HostChecked(request_response(playground.page), hosts), methods=["GET"]),
            # Previews carry capability ids and form answers: only the hosts and origins that may call /mcp read them.
            browser_route("/events", events.stream, ["GET"], CorsPolicy(core.settings.cors_origins), hosts),
            *core.sign_in_routes(),
            *challenge_routes(core.settings),
            *legal_routes(core.settings),
            *extra_routes,
        ],
    )
    app.state.events = events
    return app
