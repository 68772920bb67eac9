"""The ext-apps reference host for the browser tests, on three loopback origins as a browser-based host runs:

- the host page (tests/browser/ext_apps_host, built on the official `AppBridge`) on http://localhost:<port>;
- its sandbox proxy on http://127.0.0.1:<port2>, served with the CSP the host asks for (from the template's
  `_meta.ui.csp`) as an HTTP header, as ext-apps' examples/basic-host serves its sandbox.html;
- our MCP server (local mode: uvicorn on loopback, DynamoDB on moto) on a third port, with `CORS_ORIGINS` listing
  only the host page's origin.

Nothing here adds a user identity: neither the host nor the test's own MCP client sends one.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from browser_support import ROOT
from mcp import Client
from playwright.sync_api import Frame, FrameLocator, Page
from servers import serve
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from tool_results import structured
from widget_mcp.local.process import local_server

HOST_DIST = ROOT / "tests" / "browser" / "ext_apps_host" / "dist"
ERAS = ("legacy", "2026-07-28")  # the host's `era`, and the Python client's `mode`, for both protocol eras
NEGOTIATED = {"legacy": ("legacy", "2025-11-25"), "2026-07-28": ("modern", "2026-07-28")}
_UNSAFE_SOURCE = re.compile(r"[;\r\n'\" ,]")


def _sources(csp: dict[str, Any], key: str) -> list[str]:
    """One list of origins from `_meta.ui.csp`, without anything that could break out of its directive."""
    values = csp.get(key)
    if not isinstance(values, list):
        return []
    return [v for v in values if isinstance(v, str) and v and not _UNSAFE_SOURCE.search(v)]


def csp_header(csp: dict[str, Any] | None, inline_script: bool = False) -> str:
    """The view's Content-Security-Policy: nothing by default, then exactly what the resource declares.

    Stricter than basic-host's (which allows 'unsafe-inline' and 'unsafe-eval' for scripts, and 'self'
    everywhere): `'self'` is only in script-src, because the proxy page's own module script comes from this
    origin, which serves nothing else a view could use. `inline_script` allows inline script and `javascript:`
    URLs as basic-host does, for tests of what a widget must not run where the host's CSP would not stop it.
    """
    csp = csp or {}
    resources = _sources(csp, "resourceDomains")
    connect = _sources(csp, "connectDomains")
    frames = _sources(csp, "frameDomains")
    bases = _sources(csp, "baseUriDomains")

    def either(values: list[str]) -> str:
        return " ".join(values) if values else "'none'"

    return "; ".join(
        [
            "default-src 'none'",
            " ".join(["script-src", "'self'", *(["'unsafe-inline'"] if inline_script else []), *resources]),
            f"style-src {either(resources)}",
            " ".join(["img-src", *resources, "data:", "blob:"]),
            " ".join(["font-src", *resources, "data:"]),
            f"media-src {either(resources)}",
            f"connect-src {either(connect)}",
            f"worker-src {either(resources)}",
            f"frame-src {either(frames)}",
            "object-src 'none'",
            f"base-uri {either(bases)}",
        ]
    )


def host_app() -> Starlette:
    """The host page's origin: the page and its assets, never the sandbox proxy (another origin serves it)."""

    async def index(_request: Request) -> Response:
        return FileResponse(HOST_DIST / "index.html", headers={"cache-control": "no-store"})

    async def not_here(_request: Request) -> Response:
        return PlainTextResponse("The sandbox proxy is served on another origin.", status_code=404)

    return Starlette(
        routes=[
            Route("/", index),
            Route("/sandbox.html", not_here),
            Mount("/assets", StaticFiles(directory=HOST_DIST / "assets")),
        ]
    )


def sandbox_app() -> Starlette:
    """The sandbox proxy's origin: sandbox.html with the CSP from `?csp=` as a header (a view cannot alter it),
    allowing inline script with `?inline=1`."""

    async def sandbox(request: Request) -> Response:
        raw = request.query_params.get("csp")
        try:
            csp = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            csp = None
        inline_script = request.query_params.get("inline") == "1"
        headers = {
            "content-security-policy": csp_header(csp if isinstance(csp, dict) else None, inline_script),
            "cache-control": "no-store",
        }
        return FileResponse(HOST_DIST / "sandbox.html", headers=headers)

    return Starlette(
        routes=[
            Route("/sandbox.html", sandbox),
            Mount("/assets", StaticFiles(directory=HOST_DIST / "assets")),
        ]
    )


@dataclass(frozen=True)
class ExtAppsHost:
    host_origin: str
    sandbox_url: str
    mcp_url: str

    def url(self, tool: str, args: dict[str, Any], era: str, **extra: str) -> str:
        """`extra`: more of the host page's parameters (displayModes=inline: a host that offers no fullscreen)."""
        query = urlencode(
            {
                "server": self.mcp_url,
                "sandbox": self.sandbox_url,
                "tool": tool,
                "args": json.dumps(args),
                "era": era,
                **extra,
            },
            quote_via=quote,
        )
        return f"{self.host_origin}/?{query}"

    def call_tool(self, era: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """tools/call through the official Python client, with no identity: the structuredContent."""

        async def call() -> dict[str, Any]:
            async with Client(self.mcp_url, mode=era) as client:  # type: ignore[arg-type]
                return structured(await client.call_tool(name, args))

        # Playwright's sync API holds this thread's event loop: the client runs on a thread of its own.
        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, call()).result(timeout=30)


@contextmanager
def host_pages() -> Iterator[tuple[str, str]]:
    """The reference host page and its sandbox proxy, each on an origin of its own: (host origin, sandbox URL)."""
    if not (HOST_DIST / "index.html").is_file() or not (HOST_DIST / "sandbox.html").is_file():
        raise RuntimeError(f"the ext-apps reference host is not built ({HOST_DIST}): run `make test`")
    with serve(host_app()) as host, serve(sandbox_app()) as sandbox:
        yield host.replace("127.0.0.1", "localhost"), f"{sandbox}/sandbox.html"


@contextmanager
def ext_apps_host(table: str, settings: dict[str, str] | None = None) -> Iterator[ExtAppsHost]:
    """The reference host and its sandbox, each on an origin of its own, and `make dev`'s server with `settings`."""
    with ExitStack() as stack:
        host, sandbox = stack.enter_context(host_pages())
        server = stack.enter_context(local_server(table, settings={**(settings or {}), "CORS_ORIGINS": host}))
        yield ExtAppsHost(host_origin=host, sandbox_url=sandbox, mcp_url=f"{server.base}/mcp")


def open_in_host(
    page: Page, host: ExtAppsHost, tool: str, args: dict[str, Any], era: str, *, timeout: float = 20_000, **extra: str
) -> FrameLocator:
    """Loads the host page for one tool call and waits (`timeout` ms) until it has delivered the result to the view."""
    page.goto(host.url(tool, args, era, **extra))
    page.wait_for_function(
        "() => ['ready', 'failed'].includes(window.extAppsHost?.state)",
        timeout=timeout,
    )
    record = host_record(page)
    assert record["state"] == "ready", f"the host failed: {record['error']}"
    assert (record["era"], record["protocolVersion"]) == NEGOTIATED[era]
    result = record["toolResult"]
    assert result.get("isError") is not True, f"{tool} failed: {result.get('structuredContent') or result['content']}"
    return page.frame_locator("#view").frame_locator('[data-testid="view-frame"]')


def host_record(page: Page) -> dict[str, Any]:
    """What the host recorded (its window.extAppsHost)."""
    record: dict[str, Any] = page.evaluate("() => JSON.parse(JSON.stringify(window.extAppsHost))")
    return record


def view_frame(page: Page) -> Frame:
    """The view's own frame, inside the sandbox proxy (for evaluating in it)."""
    proxy = proxy_frame(page)
    for candidate in page.frames:
        if candidate.parent_frame == proxy:
            return candidate
    raise AssertionError("the sandbox proxy holds no view frame")


def proxy_frame(page: Page) -> Frame:
    for candidate in page.frames:
        if candidate.parent_frame == page.main_frame and candidate.url.split("?")[0].endswith("/sandbox.html"):
            return candidate
    raise AssertionError(f"no sandbox proxy frame among {[f.url for f in page.frames]}")


def view_report(page: Page) -> dict[str, Any]:
    """What the sandbox proxy saw in the view frame (and in itself): CSP violations, errors."""
    report: dict[str, Any] = proxy_frame(page).evaluate("() => window.viewReport")
    return report


def assert_view_ran_clean(page: Page) -> None:
    """The view was written and ran with no uncaught error and no CSP violation in the proxy or the view
    frame (the host page's own errors are the `page` fixture's to catch)."""
    report = view_report(page)
    record = host_record(page)
    assert report["written"], "the sandbox proxy never received the template"
    assert report["errors"] == [], f"errors in the sandbox or view frame: {report['errors']}"
    assert report["violations"] == [], f"CSP violations in the sandbox or view frame: {report['violations']}"
    assert record["errors"] == [], f"errors in the host page: {record['errors']}"


def wait_for_messages(page: Page, count: int) -> list[dict[str, Any]]:
    page.wait_for_function("(n) => window.extAppsHost.messages.length >= n", arg=count)
    messages: list[dict[str, Any]] = host_record(page)["messages"]
    return messages
