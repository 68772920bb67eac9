"""`python -m widget_mcp.local` (what `make dev` runs): serve the app on 127.0.0.1:${PORT:-8000}."""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import socket
import sys

import uvicorn

from widget_mcp.auth.gate import scopes_of
from widget_mcp.local.app import WIDGET_DIST, build_local_app
from widget_mcp.local.aws import local_aws
from widget_mcp.local.events import EventFeed
from widget_mcp.local.issuer import LOCAL_USER, LocalIssuer
from widget_mcp.local.issuer_routes import issuer_routes
from widget_mcp.settings import SettingsError, load_settings
from widget_mcp.wiring import build_core

# Requests still running at Ctrl-C get this long to finish.
SHUTDOWN_GRACE_SECONDS = 2
# Browser origins allowed to call /mcp unless CORS_ORIGINS is set: any port on loopback, so that web-based hosts
# served from this machine (MCP Inspector on :6274, the ext-apps basic-host, a Vite dev server on :5173, …) work.
# The playground itself is same-origin and needs none of it.
LOCAL_CORS_ORIGINS = "http://127.0.0.1:*,http://localhost:*,http://[::1]:*"


class LocalServer(uvicorn.Server):
    """Prints the banner only once the socket listens, so every URL in it answers at once.

    On shutdown it ends the open /events streams first, so they do not hold the graceful shutdown up.
    """

    def __init__(self, config: uvicorn.Config, feed: EventFeed, banner: str) -> None:
        super().__init__(config)
        self._feed = feed
        self._banner = banner

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            print(self._banner, flush=True)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self._feed.close()
        await super().shutdown(sockets)


def _local_issuer(base: str) -> LocalIssuer | None:
    """With AUTH_MODE=oauth and no OAUTH_ISSUER, sign-in runs against a local issuer served by this server."""
    if os.environ.get("AUTH_MODE", "").lower() != "oauth" or os.environ.get("OAUTH_ISSUER"):
        return None
    os.environ["OAUTH_ISSUER"] = f"{base}/issuer"
    os.environ.setdefault("OAUTH_AUDIENCE", f"{base}/mcp")
    return LocalIssuer(f"{base}/issuer", audience=os.environ["OAUTH_AUDIENCE"])


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


class StartError(Exception):
    """Local mode cannot start; the message is one sentence for the person who ran `make dev`."""


def _port(text: str) -> int:
    if not text.strip().isdigit() or not 1 <= int(text) <= 65535:
        raise StartError(f"PORT must be a TCP port number from 1 to 65535, got {text!r}")
    return int(text)


def _listen(host: str, port: int) -> socket.socket:
    """Bind before starting anything, so a busy port is one clear sentence, not a traceback after moto started."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise StartError(
                f"port {port} on {host} is already in use (another `make dev`?): stop it, or choose another "
                f"port, e.g. PORT={port + 1} make dev"
            ) from None
        raise StartError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(2048)
    return sock


def main() -> int:
    host = "127.0.0.1"
    try:
        port = _port(os.environ.get("PORT", "8000"))
        listening = _listen(host, port)
    except StartError as exc:
        print(exc, file=sys.stderr)
        return 2
    base = f"http://{host}:{port}"
    os.environ.setdefault("WIDGET_BASE_URL", f"{base}/widgets")
    os.environ.setdefault("WIDGET_MANIFEST", str(WIDGET_DIST / "manifest.json"))
    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    os.environ.setdefault("CORS_ORIGINS", LOCAL_CORS_ORIGINS)
    issuer = _local_issuer(base)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # moto's per-request access log
    try:
        settings = load_settings()
    except SettingsError as exc:
        listening.close()
        print(exc, file=sys.stderr)
        return 2
    with local_aws(settings.table_name) as aws:
        core = build_core(settings, concurrent=True)
        feed = EventFeed()
        routes = []
        if issuer is not None:
            issuer.scopes = scopes_of(core.runtime.protected_tools())
            routes = issuer_routes(issuer)
        app = build_local_app(core, widget_dir=WIDGET_DIST, feed=feed, extra_routes=routes)
        banner = (
            "widget-mcp local mode\n"
            f"  MCP endpoint   {base}/mcp\n"
            f"  health         {base}/healthz\n"
            f"  widgets        {base}/widgets/manifest.json\n"
            f"  playground     {base}/playground\n"
            f"  events (SSE)   {base}/events\n"
            f"  CORS origins   {', '.join(settings.cors_origins) or 'none'}\n"
            f"  AWS (moto)     {aws.endpoint_url}  table {settings.table_name}\n"
            + _sign_in_lines(settings.auth_mode, settings.oauth_issuer, issuer)
            + "Press Ctrl-C to stop."
        )
        # uvicorn re-raises Ctrl-C after a graceful shutdown. No lifespan: there is no per-process state.
        with contextlib.suppress(KeyboardInterrupt):
            config = uvicorn.Config(
                app,
                host=host,
                port=port,
                log_level="warning",
                lifespan="off",
                timeout_graceful_shutdown=SHUTDOWN_GRACE_SECONDS,
            )
            LocalServer(config, feed, banner).run(sockets=[listening])
    print("stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
