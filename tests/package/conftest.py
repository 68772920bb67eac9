"""The proof from outside opens the project's widget in the browser layer's hosts (the reference host, the mcp-use
inspector) with that layer's helpers: their folders are put on the path here, as pytest puts them there for the
browser layer's own tests."""

from __future__ import annotations

import sys
from pathlib import Path

BROWSER_LAYER = Path(__file__).resolve().parents[1] / "browser"
for folder in (str(BROWSER_LAYER), str(BROWSER_LAYER / "inspectors")):
    if folder not in sys.path:
        sys.path.append(folder)
