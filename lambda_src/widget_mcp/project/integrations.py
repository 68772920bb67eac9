"""The host integrations the package carries as files to paste into the host, never imported here."""

from __future__ import annotations

import sys
from pathlib import Path

from widget_mcp.local.paths import IN_CHECKOUT, PACKAGE_DIR, REPO


def openwebui_file() -> Path:
    """Open WebUI's integration (a Tool and a Pipe in one file): the wheel's copy, else a checkout's."""
    packaged = PACKAGE_DIR / "_integrations" / "openwebui" / "widget_mcp.py"
    if packaged.is_file() or not IN_CHECKOUT:
        return packaged
    return REPO / "integrations" / "openwebui" / "widget_mcp.py"


def print_openwebui() -> int:
    """`widget-mcp openwebui > widget_mcp.py`: the file as it is, to import in Open WebUI (docs/openwebui.md)."""
    path = openwebui_file()
    if not path.is_file():
        print(f"{path} is missing: install widget-mcp from a wheel built by `make dist`", file=sys.stderr)
        return 2
    sys.stdout.write(path.read_text(encoding="utf-8"))
    return 0
