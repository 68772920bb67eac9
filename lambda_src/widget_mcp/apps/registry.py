"""The apps this server serves, in `tools/list` order: adding an app is one line here plus its own package.

Each entry names a package whose `tool_book(context)` returns its `ToolBook`. Tests derive what they expect
(tool names, counts, argument caps) from the books built here, so a new app needs no other list edited.
"""

from __future__ import annotations

from collections.abc import Iterable

APPS: tuple[str, ...] = (
    "widget_mcp.apps.demo",
    "widget_mcp.apps.chess",
    "widget_mcp.apps.forms",
    "widget_mcp.apps.my_data",
)

# Served only with CONFORMANCE=1 (local runs of the official MCP conformance suite), after the apps above.
CONFORMANCE_APP = "widget_mcp.apps.conformance"


class RegistryError(ValueError):
    """An entry of APPS cannot be served; carries the entry."""

    def __init__(self, entry: str, problem: str) -> None:
        super().__init__(f"app {entry!r}: {problem}")
        self.entry = entry


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
