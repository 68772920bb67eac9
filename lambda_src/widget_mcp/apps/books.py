"""An app's side of the registry: the context its `tool_book(context)` is built on, and the loading of the books of
the apps registry.py lists."""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, overload

from widget_mcp.apps import registry
from widget_mcp.apps.registry import RegistryError
from widget_mcp.toolkit.app_settings import AppSettings, read_app_settings

if TYPE_CHECKING:
    from widget_mcp.settings import Settings
    from widget_mcp.storage.documents import DocumentStore
    from widget_mcp.toolkit.app_settings import S
    from widget_mcp.toolkit.tools import ToolBook


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
        return read_app_settings(app, model or AppSettings)


class App(Protocol):
    def tool_book(self, context: AppContext) -> ToolBook: ...


def load_books(context: AppContext, apps: tuple[str, ...] | None = None) -> list[ToolBook]:
    """The books of `apps` (registry entries; by default every app of the registry, read when called), built on
    `context`; RegistryError for an entry that is no app."""
    books = []
    for entry in registry.APPS if apps is None else apps:
        try:
            module = importlib.import_module(entry)
        except ModuleNotFoundError as exc:
            if exc.name is not None and entry.startswith(exc.name):
                raise RegistryError(
                    entry, "no such package on the path; check the name in WIDGET_MCP_APPS (or apps/registry.py)"
                ) from None
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
