"""`tools/list` for a 2025-11-25 session: what its client shows decides which tools it is offered.

That revision declares the client's capabilities once, in `initialize`; with RESUMABLE_STREAMS its signed session
keeps them (resumption.py), so a `tools/list` that names its session can leave out the app-only tools for a client
known not to show widgets (toolkit/client_surface.py). Its answer is cached (answer_cache.py), so the key of a
session known not to show widgets is one of its own: such a session and one that shows widgets (or one the server
knows nothing of) never share an answer. A `tools/call` reads the session too, whatever its response's shape (an event
stream or JSON alone), so an app-only tool the listing left out is refused there (`app_only`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from widget_mcp.toolkit.call import CallerClient
from widget_mcp.toolkit.client_surface import shows_widgets
from widget_mcp.transport.answer_cache import Key
from widget_mcp.transport.stream_ids import Session

# The 2025-11-25 requests whose answer depends on what the session's client shows.
LISTED_BY_SESSION = frozenset({"tools/list"})
# The 2025-11-25 requests served with what the session's client declared: its listing, and its calls.
READ_BY_SESSION = LISTED_BY_SESSION | {"tools/call"}
# Marks the cache key of an answer for a client known not to show widgets.
_NO_WIDGETS = " (no widgets)"


def listing_capabilities(method: str, session: Session | None) -> Mapping[str, Any] | None:
    """The session's capabilities, for a request whose answer depends on them; None otherwise."""
    return session.capabilities if session is not None and method in LISTED_BY_SESSION else None


def listing_key(key: Key | None, method: str, session: Session | None) -> Key | None:
    """The cache key for this session's request: `key` itself, unless the session's client is known not to show
    widgets, whose answer (fewer tools) is kept apart."""
    capabilities = listing_capabilities(method, session)
    if key is None or session is None or capabilities is None:
        return key
    if shows_widgets(CallerClient(capabilities=capabilities, client_name=session.client_name), None) is not False:
        return key
    name, modern, version, params = key
    return (name + _NO_WIDGETS, modern, version, params)
