"""The host integrations the package carries as files to paste into the host, never imported here."""

from __future__ import annotations

import sys

from widget_mcp.local.paths import toolkit_file


def print_openwebui() -> int:
    """`widget-mcp openwebui > widget_mcp.py`: Open WebUI's integration (a Tool and a Pipe in one file) as it is, to
    import in Open WebUI (docs/openwebui.md)."""
    path = toolkit_file("integrations/openwebui/widget_mcp.py", "_integrations/openwebui/widget_mcp.py")
    if not path.is_file():
        print(f"{path} is missing: install widget-mcp from a wheel built by `make dist`", file=sys.stderr)
        return 2
    sys.stdout.write(path.read_text(encoding="utf-8"))
    return 0
