"""What the function's apps declare that the stack provisions for, read from the apps themselves (the registry the
asset ships), so no list of today's apps lives in the stack."""

from __future__ import annotations

from widget_mcp.apps.registry import AppContext, declare_tasks, load_books
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore


def serve_tasks(apps: tuple[str, ...]) -> bool:
    """Whether some tool of these apps may run as a task: then the function sends each round of a task's work to
    itself, through its `live` alias, and needs leave to invoke it."""
    return declare_tasks(load_books(AppContext(Settings(), InMemoryDocumentStore()), apps))
