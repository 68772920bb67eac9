"""Where local mode finds the project, its Python sources and the built widget bundles, and where the toolkit's
development tools (the generator, the asset builder) find the files it carries (imports nothing heavy).

Two layouts: this repository's checkout (the toolkit's own sources, bundles built into widget_bundles/dist), and a
project that installed the toolkit as a package (`widget-mcp new`): its sources under the working directory's
`src/`, the bundles it built merged with the toolkit's (`WIDGET_DIST`), else the toolkit's packaged bundles.
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]
# A checkout's root: lambda_src/widget_mcp/ sits two levels under it.
REPO = PACKAGE_DIR.parents[1]
IN_CHECKOUT = (REPO / "widget_bundles" / "package.json").is_file() and (REPO / "lambda_src").is_dir()
PROJECT = REPO if IN_CHECKOUT else Path.cwd()


def toolkit_file(checkout: str, packaged: str) -> Path:
    """A file the toolkit carries: where a checkout keeps it (relative to its root), else where `make dist` puts it
    in the wheel (relative to the package)."""
    return REPO / checkout if IN_CHECKOUT else PACKAGE_DIR / packaged


# The toolkit's own built bundles.
TOOLKIT_BUNDLES = toolkit_file("widget_bundles/dist", "_bundles")
# The bundles local mode serves: `WIDGET_DIST` (a project's merge of its own with the toolkit's), else the toolkit's.
_CHOSEN_DIST = os.environ.get("WIDGET_DIST", "").strip()
WIDGET_DIST = Path(_CHOSEN_DIST).resolve() if _CHOSEN_DIST else TOOLKIT_BUNDLES
# The Python a reload watches: the toolkit's sources in a checkout, else the project's own.
SOURCE_DIRS = (REPO / "lambda_src",) if IN_CHECKOUT else (PROJECT / "src" if (PROJECT / "src").is_dir() else PROJECT,)
