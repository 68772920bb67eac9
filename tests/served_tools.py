"""The tools the server serves, in tools/list order, derived from the app registry: one list for every test."""

from widget_mcp.apps.registry import AppContext, load_books
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore

SERVED_TOOLS = [name for book in load_books(AppContext(Settings(), InMemoryDocumentStore())) for name in book.tools]
