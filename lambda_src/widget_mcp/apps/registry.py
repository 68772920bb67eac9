"""The apps this server serves, in `tools/list` order: adding an app is one line here plus its own package.

Each entry names a package whose `tool_book(context)` returns its `ToolBook`. Tests derive what they expect
(tool names, counts, argument caps) from the books built here, so a new app needs no other list edited.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, overload

if TYPE_CHECKING:
    from widget_mcp.settings import Settings
    from widget_mcp.storage.documents import DocumentStore
    from widget_mcp.toolkit.app_settings import AppSettings, S
    from widget_mcp.toolkit.tools import ToolBook

APPS: tuple[str, ...] = (
    "widget_mcp.apps.demo",
    "widget_mcp.apps.chess",
    "widget_mcp.apps.forms",
    "widget_mcp.apps.my_data",
)

# Served only with CONFORMANCE=1 (local runs of the official MCP conformance suite), after the apps above.
CONFORMANCE_APP = "widget_mcp.apps.conformance"


@dataclass(frozen=True)
class AppContext:
    """What an app may build its tools from: the validated settings and the state store."""

    settings: Settings
    store: DocumentStore

    @overload
    def app_settings(self, app: str) -> AppSettings: ...
    @overload
    def app_settings(self, app: str, model: type[S]) -> S: ...
    def app_settings(self, app: str, model: type[AppSettings] | None = None) -> AppSettings:
        """The app's own settings (`AppSettings`, or `model`, a subclass), read from `<APP>_<FIELD>` variables and
        validated now: call it in `tool_book`, so a bad value stops the server at start (SettingsError)."""
        from widget_mcp.toolkit.app_settings import AppSettings, read_app_settings

        return read_app_settings(app, model or AppSettings)


class App(Protocol):
    def tool_book(self, context: AppContext) -> ToolBook: ...


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


def load_books(context: AppContext, apps: tuple[str, ...] = APPS) -> list[ToolBook]:
    books = []
    for entry in apps:
        try:
            module = importlib.import_module(entry)
        except ModuleNotFoundError as exc:
            if exc.name is not None and entry.startswith(exc.name):
                raise RegistryError(entry, "no such package; check the name in apps/registry.py") from None
            raise
        build = getattr(module, "tool_book", None)
        if not callable(build):
            raise RegistryError(entry, "the package must define tool_book(context: AppContext) -> ToolBook")
        books.append(build(context))
    return books


def declare_tasks(books: Iterable[ToolBook]) -> bool:
    """Whether some tool of these books may run as a task: only then does the server load tasks, and the stack let
    the function invoke itself for their rounds."""
    return any(spec.task_support != "forbidden" for book in books for spec in book.tools.values())
