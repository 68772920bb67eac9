"""`make dev` serves the legal pages at /legal/<page>.html, written as the stack writes them (publishing/legal.py)
from the served apps and the local settings, so a publisher reads what a deployment would publish."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route, request_response

from widget_mcp.publishing.legal import LEGAL_PREFIX, Deployment, legal_pages
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.transport.cross_origin import HostChecked
from widget_mcp.transport.guards import HostAllowlist
from widget_mcp.wiring import build_books


def local_deployment(settings: Settings) -> Deployment:
    return Deployment(
        rate_window_seconds=settings.rate_limit_window_seconds,
        rate_limited=settings.rate_limit_calls > 0,
        sign_in=settings.auth_mode == "oauth",
    )


def legal_routes(settings: Settings) -> list[BaseRoute]:
    pages = legal_pages(build_books(settings, InMemoryDocumentStore()), local_deployment(settings))

    async def page(request: Request) -> Response:
        text = pages.get(request.path_params["page"])
        if text is None:
            return PlainTextResponse("no such page", status_code=404)
        return HTMLResponse(text, headers={"Cache-Control": "no-store"})

    hosts = HostAllowlist(settings.allowed_hosts)
    return [Route(f"/{LEGAL_PREFIX}/{{page}}", HostChecked(request_response(page), hosts), methods=["GET"])]
