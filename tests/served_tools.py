"""The tools the server serves, in tools/list order, derived from the app registry: one list for every test."""

from widget_mcp.apps.books import AppContext, load_books
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit.id_sources import makers_of

_SPECS = [spec for book in load_books(AppContext(Settings(), InMemoryDocumentStore())) for spec in book.tools.values()]

SERVED_TOOLS = [spec.name for spec in _SPECS]
# Each served tool's declaration (its input model and schemas), by name.
SERVED_SPECS = {spec.name: spec for spec in _SPECS}
# The tools a user (or the model) may call, as against app-only ones (`private`: only a widget calls them).
USER_TOOLS = [spec.name for spec in _SPECS if spec.visibility != "private"]
# Each tool's outputSchema, as listed: every structuredContent it returns, errors included, must validate.
OUTPUT_SCHEMAS = {spec.name: spec.output_schema for spec in _SPECS}


def needs_identity(tool: str) -> bool:
    """Whether a derived call of `tool` runs as an identified user (ChatGPT's openai/subject): the tool, or a maker of
    an id it needs, declares `needs_identity=True`. The whole chain then runs as that one user, whose state it is."""
    chain = (tool, *(source.tool for source in makers_of(SERVED_SPECS, tool)))
    return any(SERVED_SPECS[name].needs_identity for name in chain)
