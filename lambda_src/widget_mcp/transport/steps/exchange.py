"""One JSON-RPC request as it goes through the endpoint's steps, and what a message of a POST is answered with."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

from widget_mcp.transport.call_events import CallEvents
from widget_mcp.transport.caller import Caller
from widget_mcp.transport.replies import HttpReply, Pending
from widget_mcp.transport.resumption import Resuming
from widget_mcp.transport.stream_ids import Session


@dataclass(frozen=True, slots=True)
class Exchange:
    """One JSON-RPC request that passed the transport's checks, with the protocol era it is served in."""

    rid: str | int
    method: str
    params: dict[str, Any] | None
    headers: Mapping[str, str]
    http_request_id: str | None
    modern: bool
    version: str
    client_info: Any = None
    client_capabilities: Any = None
    peer: str | None = None
    events: CallEvents | None = None
    # A 2025-11-25 request's session (RESUMABLE_STREAMS), whether its stream can carry input requests, and the kept
    # call it resumes.
    session: Session | None = None
    resumable: bool = False
    resuming: Resuming | None = None
    # Who sends it, as identified (identify.py); None until a token is verified in a worker thread.
    caller: Caller | None = None


# What one message of a POST gets: its reply (at once or later), or None when it is answered by nothing (a
# notification, or a response to the client's own request).
Answer = HttpReply | Pending | None


def valid_id(value: Any) -> TypeGuard[str | int]:
    return (isinstance(value, (str, int))) and not isinstance(value, bool)
