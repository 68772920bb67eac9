"""The proof from outside opens the project's widget in the browser layer's reference host, with that layer's helpers:
their folder is put on the path here, as the browser layer's own conftest puts it there for its tests."""

from __future__ import annotations

import sys
from pathlib import Path

BROWSER_LAYER = str(Path(__file__).resolve().parents[1] / "browser")
if BROWSER_LAYER not in sys.path:
    sys.path.append(BROWSER_LAYER)
