"""How a generated project depends on the toolkit: the version this toolkit is, from where it was installed.

Installed from a wheel file (`uvx --from dist/widget_mcp-….whl widget-mcp new`), the project points uv at that file,
so it builds with no index; installed from an index, it pins the version.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

from widget_mcp.local.paths import REPO

DISTRIBUTION = "widget-mcp"


@dataclass(frozen=True)
class ToolkitPin:
    version: str
    # A wheel file on this machine, when the toolkit was installed from one.
    wheel: Path | None = None

    def requirement(self, extras: str = "") -> str:
        """The dependency line, e.g. `widget-mcp[local,cdk]==0.2.0`."""
        return f"{DISTRIBUTION}{f'[{extras}]' if extras else ''}=={self.version}"


def installed_pin() -> ToolkitPin:
    """The pin for the toolkit this process runs (PEP 610's direct_url.json says where a file install came from)."""
    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        # Running from a checkout (`make` puts lambda_src on the path): the version its pyproject declares.
        return ToolkitPin(_checkout_version())
    wheel = None
    direct = dist.read_text("direct_url.json")
    if direct:
        url = json.loads(direct).get("url", "")
        parsed = urlparse(url)
        if parsed.scheme == "file" and parsed.path.endswith(".whl"):
            wheel = Path(unquote(parsed.path))
    return ToolkitPin(dist.version, wheel if wheel is not None and wheel.is_file() else None)


def _checkout_version() -> str:
    import tomllib

    pyproject = REPO / "pyproject.toml"
    return str(tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"])
