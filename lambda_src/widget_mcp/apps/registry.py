"""The apps this server serves, in `tools/list` order: adding an app is one line here plus its own package.

Each entry names a package whose `tool_book(context)` returns its `ToolBook`. Tests derive what they expect
(tool names, counts, argument caps) from the books built here, so a new app needs no other list edited.

A project of its own (`widget-mcp new`) registers its apps without editing this file: `WIDGET_MCP_APPS` lists their
packages (`weather,notes`), and the toolkit's own data app follows them. The variable is read once, at import.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

# The reference apps this repository serves, examples of the public API, with the toolkit's data app last.
BUILT_IN: tuple[str, ...] = (
    "widget_mcp.apps.demo",
    "widget_mcp.apps.chess",
    "widget_mcp.apps.forms",
    "widget_mcp.apps.my_data",
)
# Every user's data, listed and erased on request (README, "Keep state"): served whatever else is.
DATA_APP = "widget_mcp.apps.my_data"
ENVIRONMENT = "WIDGET_MCP_APPS"

# Served only with CONFORMANCE=1 (local runs of the official MCP conformance suite), after the apps above. The
# fixtures are not part of the package: they live in the repository's tests/conformance/, which `make` puts on the path.
CONFORMANCE_APP = "conformance_fixtures"


class RegistryError(ValueError):
    """An entry of APPS cannot be served; carries the entry."""

    def __init__(self, entry: str, problem: str) -> None:
        super().__init__(f"app {entry!r}: {problem}")
        self.entry = entry


def registry_of(value: str | None) -> tuple[str, ...]:
    """The registry a `WIDGET_MCP_APPS` value makes: its packages in order, then the data app; unset or blank: the
    built-in apps. RegistryError for an entry that is no dotted package name."""
    entries = tuple(dict.fromkeys(entry.strip() for entry in (value or "").split(",") if entry.strip()))
    if not entries:
        return BUILT_IN
    for entry in entries:
        if not all(part.isidentifier() for part in entry.split(".")):
            raise RegistryError(entry, f"{ENVIRONMENT} lists package names such as weather or my_project.notes")
    return entries if DATA_APP in entries else (*entries, DATA_APP)


APPS: tuple[str, ...] = registry_of(os.environ.get(ENVIRONMENT))


def app_name(entry: str) -> str:
    """The name an app is chosen by (`APPS=chess,forms`, `-c apps=…`): its package's last segment."""
    return entry.rsplit(".", 1)[-1]


def select_apps(names: Iterable[str], registered: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """The registry entries of the apps named, in registry order (`tools/list` order); no names: every app."""
    if registered is None:
        registered = APPS  # read when called: tests and tools may extend the registry
    chosen = tuple(dict.fromkeys(name.strip() for name in names if name.strip()))
    if not chosen:
        return registered
    known = {app_name(entry): entry for entry in registered}
    unknown = [name for name in chosen if name not in known]
    if unknown:
        raise RegistryError(
            ", ".join(unknown), f"not a registered app; the apps are {', '.join(known)} (apps/registry.py)"
        )
    return tuple(entry for entry in registered if app_name(entry) in chosen)
