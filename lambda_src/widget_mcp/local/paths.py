"""Where local mode finds the project, its Python sources and the built widget bundles (imports nothing heavy).

Two layouts: this repository's checkout (the toolkit's own sources, bundles built into widget_bundles/dist), and a
project that installed the toolkit as a package (`widget-mcp new`): its sources under the working directory's
`src/`, the bundles it built merged with the toolkit's (`WIDGET_DIST`), else the toolkit's packaged bundles.
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]
# The bundles a wheel carries (`make dist` puts widget_bundles/dist there).
PACKAGED_BUNDLES = PACKAGE_DIR / "_bundles"
# A checkout's root: lambda_src/widget_mcp/ sits two levels under it.
REPO = PACKAGE_DIR.parents[1]
IN_CHECKOUT = (REPO / "widget_bundles" / "package.json").is_file() and (REPO / "lambda_src").is_dir()
PROJECT = REPO if IN_CHECKOUT else Path.cwd()


def _widget_dist() -> Path:
    chosen = os.environ.get("WIDGET_DIST", "").strip()
    if chosen:
        return Path(chosen).resolve()
    return REPO / "widget_bundles" / "dist" if IN_CHECKOUT else PACKAGED_BUNDLES


WIDGET_DIST = _widget_dist()
# The Python a reload watches: the toolkit's sources in a checkout, else the project's own.
SOURCE_DIRS = (REPO / "lambda_src",) if IN_CHECKOUT else (PROJECT / "src" if (PROJECT / "src").is_dir() else PROJECT,)
