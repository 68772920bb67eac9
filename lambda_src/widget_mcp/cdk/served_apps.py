"""What the function's apps declare that the stack provisions for, read from the apps themselves (the registry the
asset ships), so no list of today's apps lives in the stack."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from widget_mcp.apps import registry
from widget_mcp.apps.books import AppContext, declare_tasks, load_books
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit.tools import ToolBook


def registry_of(apps: Sequence[str] | None) -> tuple[str, ...]:
    """The registry a function serves with `apps` as its WIDGET_MCP_APPS (`widget_mcp.apps.registry.registry_of`:
    those packages, then the toolkit's data app); None: the toolkit's registry (`registry.APPS`, read when called)."""
    if apps is None:
        return registry.APPS
    return registry.registry_of(",".join(apps))


def _books(apps: tuple[str, ...]) -> list[ToolBook]:
    return load_books(AppContext(Settings(), InMemoryDocumentStore()), apps)


def serve_tasks(apps: tuple[str, ...]) -> bool:
    """Whether some tool of these apps may run as a task: then the function sends each round of a task's work to
    itself, through its `live` alias, and needs leave to invoke it."""
    return declare_tasks(_books(apps))


@dataclass(frozen=True)
class ServedTool:
    """A tool the function serves, as the dashboard and the alarms name it."""

    name: str
    # False for a tool that may run as a task: its latency is a task's work, not a call's answer.
    answers_in_call: bool


def served_tools(apps: tuple[str, ...]) -> tuple[ServedTool, ...]:
    """The tools these apps serve, in `tools/list` order: the dashboard graphs and the latency alarms name each."""
    return tuple(
        ServedTool(spec.name, spec.task_support == "forbidden") for book in _books(apps) for spec in book.tools.values()
    )


def served_books(apps: tuple[str, ...]) -> list[ToolBook]:
    """The served apps' books on the settings' defaults: what the legal pages list (their data, their TTLs)."""
    return _books(apps)
