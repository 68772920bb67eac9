"""`python -m widget_mcp.local` (what `make dev` runs): serve the app on 127.0.0.1:${PORT:-8000}.

With RELOAD=1 (the default) this process binds the port, starts moto and, when it can, Vite's watch build of the
widgets, and runs the app in a worker process that restarts when Python under lambda_src/ or the widget manifest
changes (widget_mcp.local.reload), so state in moto survives. RELOAD=0 serves in this process and watches nothing
(what the tests' servers do: widget_mcp.local.process).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import secrets
import socket
import sys
from pathlib import Path

from widget_mcp.local.aws import local_aws
from widget_mcp.local.aws_env import isolate_from_user_aws
from widget_mcp.local.issuer import LocalIssuer
from widget_mcp.local.paths import PROJECT, SOURCE_DIRS, WIDGET_DIST
from widget_mcp.local.serve import ServeOptions, serve
from widget_mcp.settings import SettingsError, load_settings

# Browser origins allowed to call /mcp unless CORS_ORIGINS is set: any port on loopback, so that web-based hosts
# served from this machine (MCP Inspector on :6274, the ext-apps basic-host, a Vite dev server on :5173, …) work.
# The playground itself is same-origin and needs none of it.
LOCAL_CORS_ORIGINS = "http://127.0.0.1:*,http://localhost:*,http://[::1]:*"
RELOAD_VALUES = {"1": True, "true": True, "on": True, "yes": True} | dict.fromkeys(("0", "false", "off", "no"), False)


def _local_issuer(base: str) -> LocalIssuer | None:
    """With AUTH_MODE=oauth and no OAUTH_ISSUER, sign-in runs against a local issuer served by this server."""
    if os.environ.get("AUTH_MODE", "").lower() != "oauth" or os.environ.get("OAUTH_ISSUER"):
        return None
    os.environ["OAUTH_ISSUER"] = f"{base}/issuer"
    os.environ.setdefault("OAUTH_AUDIENCE", f"{base}/mcp")
    return LocalIssuer(f"{base}/issuer", audience=os.environ["OAUTH_AUDIENCE"])


class StartError(Exception):
    """Local mode cannot start; the message is one sentence for the person who ran `make dev`."""


def _port(text: str) -> int:
    if not text.strip().isdigit() or not 1 <= int(text) <= 65535:
        raise StartError(f"PORT must be a TCP port number from 1 to 65535, got {text!r}")
    return int(text)


def _reload(text: str) -> bool:
    value = RELOAD_VALUES.get(text.strip().lower())
    if value is None:
        raise StartError(f"RELOAD must be 1 (restart on changes) or 0 (serve once), got {text!r}")
    return value


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


def _state_lines(reload: bool, widgets_note: str) -> str:
    if not reload:
        return (
            "  state          in memory (moto): lost when `make dev` stops\n"
            "  reload         off (RELOAD=1 restarts the app on changes)\n"
        )
    sources = ", ".join(f"{directory.name}/" for directory in SOURCE_DIRS)
    return (
        "  state          in memory (moto): kept across reloads, lost when `make dev` stops\n"
        f"  reload         Python ({sources}), {widgets_note}; RELOAD=0 turns it off\n"
    )


def main() -> int:
    host = "127.0.0.1"
    try:
        port = _port(os.environ.get("PORT", "8000"))
        reload = _reload(os.environ.get("RELOAD", "1"))
        listening = _listen(host, port)
    except StartError as exc:
        print(exc, file=sys.stderr)
        return 2
    base = f"http://{host}:{port}"
    isolate_from_user_aws()  # before any boto3 client: the user's AWS_PROFILE and ~/.aws are never read
    os.environ.setdefault("WIDGET_BASE_URL", f"{base}/widgets")
    os.environ.setdefault("WIDGET_MANIFEST", str(WIDGET_DIST / "manifest.json"))
    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    os.environ.setdefault("CORS_ORIGINS", LOCAL_CORS_ORIGINS)
    if not os.environ.get("REQUEST_STATE_SECRET") and not os.environ.get("REQUEST_STATE_SECRET_ARN"):
        # One key for the whole run, which every reload inherits: the input requests, sessions and streams signed
        # before a save are still accepted after it.
        os.environ["REQUEST_STATE_SECRET"] = secrets.token_urlsafe(32)
    issuer = _local_issuer(base)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # moto's per-request access log
    try:
        settings = load_settings()
    except SettingsError as exc:
        listening.close()
        print(exc, file=sys.stderr)
        return 2
    manifest = Path(os.environ["WIDGET_MANIFEST"])
    key = issuer.private_key_pem() if issuer is not None else None
    # uvicorn re-raises Ctrl-C after a graceful shutdown; the reloader stops on it without raising.
    with contextlib.suppress(KeyboardInterrupt), local_aws(settings.table_name) as aws:
        if not reload:
            serve(ServeOptions(host, port, aws.endpoint_url, key, _state_lines(False, "")), [listening])
        else:
            from widget_mcp.local.reload import Watch, serve_with_reload
            from widget_mcp.local.widget_watch import start_widget_watch

            watch = Watch(list(SOURCE_DIRS), manifest)
            widgets = start_widget_watch(manifest)
            try:
                options = ServeOptions(host, port, aws.endpoint_url, key, _state_lines(True, widgets.note))
                serve_with_reload(options, listening, watch, PROJECT)
            finally:
                widgets.stop()
    print("stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
