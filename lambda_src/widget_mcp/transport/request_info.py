"""What the tool layer may know about the HTTP request that carried a call (the request context the endpoint hands
the MCP server's handlers)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from widget_mcp.transport.call_events import CallEvents


@dataclass(frozen=True, slots=True)
class RequestInfo:
    """What the tool layer may know about the HTTP request that carried a call."""

    headers: Mapping[str, str]
    request_id: str | None = None
    # The verified OAuth subject, when sign-in is on and the caller sent a valid token.
    subject: str | None = None
    # The user a host vouched for with a valid host token (`<host>/<user id>`), when sign-in is off.
    host_subject: str | None = None
    # Looks up the caller's address as per-source limits count it (client_address.py), once, when first asked.
    locate_source: Callable[[], str | None] | None = None
    # Where a tools/call's notifications go, when the client accepts an event stream.
    events: CallEvents | None = None
    # A 2025-11-25 client's capabilities and name, from its signed session (resumption.py), for a request whose
    # answer depends on them (session_listing.py); None otherwise.
    session_capabilities: Mapping[str, Any] | None = None
    session_client: str | None = None
    # The call's event stream can carry its input requests and be resumed for their answers (a JSON-only call's
    # cannot: its session still says what the client shows).
    resumable_stream: bool = False
    # The 2025-11-25 client's verified session (its nonce), when RESUMABLE_STREAMS is on; None otherwise.
    session_id: str | None = None
    # The call was counted against its caller's rate limit already (a kept call's rerun, admitted by its GET).
    admitted: bool = False

    @property
    def source(self) -> str | None:
        """The caller's address; None when unknown (in-process)."""
        return self.locate_source() if self.locate_source is not None else None
