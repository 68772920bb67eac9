"""The widget kit a generated project's widgets build on: the toolkit's `shared/` widget sources (the bridge to the
host), its Vite `plugins/` and the npm versions they were built with. A wheel carries it inside the package; a
checkout of the toolkit has it in widget_bundles/.

`python -m widget_mcp.project.widget_kit shared|plugins` prints where that folder of the kit is (the project's
Makefile links both, so a toolkit upgrade brings the widgets' bridge with it).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from widget_mcp.local.paths import toolkit_file

# What a project's widget imports from npm, besides what the kit's modules import.
NPM_DEPENDENCIES = (
    "@modelcontextprotocol/client",
    "@modelcontextprotocol/core",
    "@modelcontextprotocol/ext-apps",
    "zod",
)
NPM_DEV_DEPENDENCIES = ("typescript", "vite")
# The kit's folders a project links: where a checkout keeps each, and where the wheel does.
FOLDERS = {
    "shared": ("widget_bundles/src/shared", "_widget_kit/shared"),
    "plugins": ("widget_bundles/plugins", "_widget_kit/plugins"),
}


class KitMissing(LookupError):
    """The installed toolkit carries no widget kit (a wheel built without its bundles)."""


def kit_dir() -> Path:
    """The folder holding the kit's `package.json`."""
    kit = toolkit_file("widget_bundles", "_widget_kit")
    if not (kit / "package.json").is_file():
        raise KitMissing(f"{kit} is missing: install widget-mcp from a wheel built by `make dist`")
    return kit


def npm_versions() -> tuple[dict[str, str], dict[str, str]]:
    """The exact versions (dependencies, devDependencies) of the kit's npm packages a project's widget needs."""
    manifest = json.loads((kit_dir() / "package.json").read_text(encoding="utf-8"))
    locked = {**manifest.get("dependencies", {}), **manifest.get("devDependencies", {})}
    return (
        {name: locked[name] for name in NPM_DEPENDENCIES},
        {name: locked[name] for name in NPM_DEV_DEPENDENCIES},
    )


def main(argv: Sequence[str] | None = None) -> int:
    folder = (sys.argv[1:] if argv is None else list(argv))[:1]
    if folder == [] or folder[0] not in FOLDERS:
        print(f"usage: python -m widget_mcp.project.widget_kit {'|'.join(FOLDERS)}", file=sys.stderr)
        return 2
    try:
        kit_dir()
    except KitMissing as exc:
        print(exc, file=sys.stderr)
        return 2
    print(toolkit_file(*FOLDERS[folder[0]]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
