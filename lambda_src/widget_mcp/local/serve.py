"""Builds local mode's app from the environment and serves it on sockets already bound: what `make dev` restarts
on a reload (in a fresh worker process), or runs once in its own process with `RELOAD=0`.

Everything that must outlive a reload is the caller's and reaches here through the environment or `ServeOptions`:
the listening socket, moto (AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_S3) and the local issuer's signing key, so
games, forms and tokens survive a restart of the app.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import socket
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import uvicorn

from widget_mcp.local.issuer import LOCAL_USER, LocalIssuer
from widget_mcp.local.serve_failure import failure_app, failure_summary

if TYPE_CHECKING:
    from starlette.types import ASGIApp

    from widget_mcp.local.events import EventFeed

# Requests still running at Ctrl-C (or at a reload) get this long to finish.
SHUTDOWN_GRACE_SECONDS = 2


@dataclass(frozen=True)
class ServeOptions:
    """What the app needs besides the environment; picklable, as a reload hands it to a new process."""

    host: str
    port: int
    aws_url: str
    # The local issuer's signing key (PEM) when `make dev` serves one (AUTH_MODE=oauth, no OAUTH_ISSUER), else None.
    issuer_key: bytes | None
    # The banner's lines about state and reloading.
    reload_lines: str

    @property
    def base(self) -> str:
        return f"http://{self.host}:{self.port}"


@dataclass(frozen=True)
class Restart:
    """Why this process serves: the files whose change restarted the app, and when that was seen (epoch seconds)."""

    changed: tuple[str, ...]
    seen_at: float


class LocalServer(uvicorn.Server):
    """Prints `announce` (the banner, or a line after a reload) only once the socket is served, so every URL in it
    answers at once.

    On shutdown it ends the open /events streams first, so they do not hold the graceful shutdown up (and a
    playground's stream reconnects to the next process after a reload).
    """

    def __init__(
        self, config: uvicorn.Config, feed: EventFeed, announce: str, on_started: Callable[[], object] | None = None
    ) -> None:
        super().__init__(config)
        self._feed = feed
        self._announce = announce
        self._on_started = on_started

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            print(self._announce, flush=True)
            if self._on_started is not None:
                self._on_started()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self._feed.close()
        await super().shutdown(sockets)


def _resumable_line(on: bool) -> str:
    if on:
        from widget_mcp.transport.stream_ids import FIRST_RETRY_MS, LISTEN_RETRY_MS, LONGEST_RETRY_MS

        return (
            f"  2025-11-25     resumable streams on: input requests (a waiting client polls every "
            f"{FIRST_RETRY_MS / 1000:g}-{LONGEST_RETRY_MS / 1000:g} s), subscriptions (a session's stream every "
            f"{LISTEN_RETRY_MS / 1000:g} s); RESUMABLE_STREAMS=0 turns them off\n"
        )
    return "  2025-11-25     resumable streams off (RESUMABLE_STREAMS=0): tools that ask answer input_unsupported\n"


def _sign_in_lines(mode: str, issuer_url: str | None, issuer: LocalIssuer | None) -> str:
    if mode != "oauth":
        return "  sign-in        off (AUTH_MODE=oauth turns it on)\n"
    if issuer is None:
        return f"  sign-in        OAuth, tokens from {issuer_url}\n"
    # Development only: the local issuer signs anyone in without a password.
    return (
        f"  sign-in        OAuth, local issuer {issuer.issuer} (signs anyone in: development only)\n"
        f"  token          {issuer.mint(LOCAL_USER)}\n"
        f"                 (Authorization: Bearer …, for {LOCAL_USER}, valid 1 h)\n"
    )


def build_server(
    options: ServeOptions, restart: Restart | None = None, on_started: Callable[[], object] | None = None
) -> LocalServer:
    """The app built from the environment (settings, moto's endpoints), ready to serve; not yet started. It prints
    the banner once it serves, or with `restart`, how long the restart took; then it calls `on_started`."""
    # Imported here, not above: `make dev`'s own process imports this module but never builds the app.
    from widget_mcp.auth.gate import scopes_of
    from widget_mcp.local.app import build_local_app
    from widget_mcp.local.events import EventFeed
    from widget_mcp.local.issuer_routes import issuer_routes
    from widget_mcp.local.load_check import load_every_app
    from widget_mcp.local.paths import WIDGET_DIST
    from widget_mcp.settings import load_settings
    from widget_mcp.transport.guards import CorsPolicy, HostAllowlist
    from widget_mcp.wiring import build_core

    settings = load_settings()
    core = build_core(settings, concurrent=True)
    unloaded = load_every_app(core)
    for line in unloaded:
        print(line, flush=True)
    feed = EventFeed()
    routes = []
    issuer = None
    if options.issuer_key is not None:
        url, audience = os.environ["OAUTH_ISSUER"], os.environ["OAUTH_AUDIENCE"]
        issuer = LocalIssuer(url, audience=audience, key_pem=options.issuer_key)
        issuer.scopes = scopes_of(core.runtime.protected_tools())
        routes = issuer_routes(issuer, CorsPolicy(settings.cors_origins), HostAllowlist(settings.allowed_hosts))
    app = build_local_app(core, widget_dir=WIDGET_DIST, feed=feed, extra_routes=routes)
    base = options.base
    if restart is None:
        announce = (
            "widget-mcp local mode\n"
            f"  MCP endpoint   {base}/mcp\n"
            f"  health         {base}/healthz\n"
            f"  widgets        {base}/widgets/manifest.json\n"
            f"  playground     {base}/playground\n"
            f"  events (SSE)   {base}/events\n"
            f"  legal pages    {base}/legal/privacy.html (terms.html, support.html)\n"
            f"  CORS origins   {', '.join(settings.cors_origins) or 'none'}\n"
            f"  AWS (moto)     {options.aws_url}  table {settings.table_name}\n"
            + options.reload_lines
            + _sign_in_lines(settings.auth_mode, settings.oauth_issuer, issuer)
            + _resumable_line(settings.resumable_streams)
            + "Press Ctrl-C to stop."
        )
    else:
        announce = f"reloaded in {time.time() - restart.seen_at:.1f} s: {len(core.runtime.tools)} tools"
    if unloaded:
        announce += f"\n{len(unloaded)} tool(s) cannot load their handlers (printed above): fix and save"
    return LocalServer(_config(app, options), feed, announce, on_started)


def _config(app: ASGIApp, options: ServeOptions) -> uvicorn.Config:
    # No lifespan: there is no per-process state to set up. No proxy headers: uvicorn would otherwise take the client
    # address from X-Forwarded-For on any loopback connection; TRUSTED_PROXY_HOPS alone decides whether it counts.
    return uvicorn.Config(
        app,
        host=options.host,
        port=options.port,
        log_level="warning",
        lifespan="off",
        timeout_graceful_shutdown=SHUTDOWN_GRACE_SECONDS,
        proxy_headers=False,
    )


def _stop_with_parent(server: uvicorn.Server) -> None:
    """In a reload worker: shut down when the process that started it is gone (killed, not stopped), rather than
    hold the port with nothing behind it."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    sentinel = parent.sentinel

    def wait() -> None:
        multiprocessing.connection.wait([sentinel])
        server.should_exit = True

    threading.Thread(target=wait, name="parent-watch", daemon=True).start()


def serve(
    options: ServeOptions,
    sockets: list[socket.socket],
    restart: Restart | None = None,
    on_started: Callable[[], object] | None = None,
    *,
    explain_failure: bool = False,
) -> None:
    """Serve until a signal (SIGINT re-raised as KeyboardInterrupt once shut down, as uvicorn does).

    With `explain_failure` (a reload worker), an app that fails to build is printed and every request is answered
    503 with the error until the next change replaces this process: exiting would leave the socket, which the
    reloader keeps, with no one to answer, and requests would hang in its backlog."""
    try:
        server: uvicorn.Server = build_server(options, restart, on_started)
    except Exception as exc:
        if not explain_failure:
            raise
        traceback.print_exc()
        summary = failure_summary(exc)
        print(f"the app failed to load ({summary}): fix it and save, and it starts again", flush=True)
        server = uvicorn.Server(_config(failure_app(summary), options))
    _stop_with_parent(server)
    server.run(sockets=sockets)
