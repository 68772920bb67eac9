"""Our handler, as deployed."""

from __future__ import annotations

import os
from typing import Any

from bench.events import HOST

TOOL = "display_demo"


def make_handler() -> Any:
    os.environ.setdefault("ALLOWED_HOSTS", HOST)
    from widget_mcp.handler import handler

    return handler
