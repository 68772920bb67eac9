"""Where local mode finds the repository and the built widget bundles (a module that imports nothing heavy)."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
WIDGET_DIST = REPO / "widget_bundles" / "dist"
