"""The SDK `DispatchContext` for one stateless HTTP exchange: JSON replies leave no room for server requests."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.shared.dispatcher import CallOptions
from mcp.shared.exceptions import NoBackChannelError
from mcp.shared.message import MessageMetadata
from mcp.shared.transport_context import TransportContext
from mcp_types import RequestId


@dataclass
class SingleExchangeContext:
    transport: TransportContext
    request_id: RequestId
    message_metadata: MessageMetadata
    cancel_requested: anyio.Event = field(default_factory=anyio.Event)
    can_send_request: bool = field(default=False, init=False)

    async def send_raw_request(
        self, method: str, params: Mapping[str, Any] | None, opts: CallOptions | None = None
    ) -> dict[str, Any]:
        raise NoBackChannelError(method)

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: CallOptions | None = None) -> None:
        """A JSON response carries one message, so request-scoped notifications are dropped."""

    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Progress needs a stream; in JSON mode there is none."""
