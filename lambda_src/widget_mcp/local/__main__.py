"""`python -m widget_mcp.local` (what `make dev` runs): serve the app on 127.0.0.1:${PORT:-8000}."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from pathlib import Path

import uvicorn

from widget_mcp.local.aws import local_aws
from widget_mcp.settings import SettingsError, load_settings
from widget_mcp.wiring import build_app, build_core

REPO = Path(__file__).resolve().parents[3]
WIDGET_DIST = REPO / "widget_bundles" / "dist"


def main() -> int:
    host = "127.0.0.1"
    port = int(os.environ.get("PORT", "8000"))
    base = f"http://{host}:{port}"
    os.environ.setdefault("WIDGET_BASE_URL", f"{base}/widgets")
    os.environ.setdefault("WIDGET_MANIFEST", str(WIDGET_DIST / "manifest.json"))
    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # moto's per-request access log
    try:
        settings = load_settings()
    except SettingsError as exc:
        print(exc, file=sys.stderr)
        return 2
    with local_aws(settings.table_name) as aws:
        core = build_core(settings, concurrent=True)
        app = build_app(core, widget_dir=WIDGET_DIST)
        print(
            "widget-mcp local mode\n"
            f"  MCP endpoint   {base}/mcp\n"
            f"  health         {base}/healthz\n"
            f"  widgets        {base}/widgets/\n"
            f"  AWS (moto)     {aws.endpoint_url}  table {settings.table_name}\n"
            "Press Ctrl-C to stop.",
            flush=True,
        )
        # uvicorn re-raises Ctrl-C after a graceful shutdown. No lifespan: there is no per-process state.
        with contextlib.suppress(KeyboardInterrupt):
            uvicorn.run(app, host=host, port=port, log_level="warning", lifespan="off")
    print("stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
