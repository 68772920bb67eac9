"""The SDK `DispatchContext` and `Connection` for one stateless HTTP exchange: JSON replies leave no room for server
requests."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.server.connection import Connection
from mcp.shared.dispatcher import CallOptions
from mcp.shared.exceptions import NoBackChannelError
from mcp.shared.message import MessageMetadata
from mcp.shared.transport_context import TransportContext
from mcp_types import DEFAULT_NEGOTIATED_VERSION, RequestId

# The SDK's no-back-channel outbound, which `Connection.from_envelope` installs.
_NO_CHANNEL = Connection.from_envelope(DEFAULT_NEGOTIATED_VERSION, None, None).outbound


def envelope_connection(protocol_version: str, client_info: Any, client_capabilities: Any) -> Connection:
    """`Connection.from_envelope(protocol_version, client_info, client_capabilities)`.

    Without an envelope (every 2025-11-25 request) it builds the same born-ready connection directly: the SDK
    validates each absent value as a model and builds a ValidationError for it, which was ~13 µs a request.
    """
    if client_info is not None or client_capabilities is not None:
        return Connection.from_envelope(protocol_version, client_info, client_capabilities)
    connection = Connection(_NO_CHANNEL, protocol_version=protocol_version)
    connection.initialized.set()
    return connection


@dataclass
class SingleExchangeContext:
    transport: TransportContext
    request_id: RequestId
    message_metadata: MessageMetadata
    can_send_request: bool = field(default=False, init=False)
    _cancel_requested: anyio.Event | None = field(default=None, init=False, repr=False)

    @property
    def cancel_requested(self) -> anyio.Event:
        """Made when first asked for: nothing cancels a single exchange, and an event made outside an event loop
        costs a failed event-loop lookup."""
        if self._cancel_requested is None:
            self._cancel_requested = anyio.Event()
        return self._cancel_requested

    async def send_raw_request(
        self, method: str, params: Mapping[str, Any] | None, opts: CallOptions | None = None
    ) -> dict[str, Any]:
        raise NoBackChannelError(method)

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: CallOptions | None = None) -> None:
        """A JSON response carries one message, so request-scoped notifications are dropped."""

    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Progress needs a stream; in JSON mode there is none."""
