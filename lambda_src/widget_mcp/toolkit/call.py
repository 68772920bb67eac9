"""The per-call context a tool handler receives."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from widget_mcp.toolkit.ownership import AnonymousState, StateOwner, caller_key, state_owner
from widget_mcp.toolkit.principal import Principal
from widget_mcp.toolkit.results import DisplayWidget

if TYPE_CHECKING:
    from widget_mcp.toolkit.limits import CallLimiter


@dataclass
class ToolCall:
    tool: str
    principal: Principal
    request_meta: Mapping[str, Any] = field(default_factory=dict)
    request_id: str | None = None
    widgets: list[DisplayWidget] = field(default_factory=list)
    # What a call without identity may do with state (the ANONYMOUS_STATE setting; always refuse with sign-in).
    anonymous_state: AnonymousState = "refuse"
    # The caller's address (transport/client_address.py); None in process, where no network is crossed.
    source: str | None = None
    # The per-caller rate limit on calls that use state; None: no limit.
    limiter: CallLimiter | None = None
    _admitted: bool = field(default=False, init=False, repr=False)

    @property
    def caller(self) -> str:
        """Who per-caller limits count this call against (ownership.caller_key)."""
        return caller_key(self.principal, self.source)

    def owner(self, what: str) -> StateOwner:
        """Whose state this call reaches. `what` names the state ("Games") in the identity_required message.

        Asking is what makes a call one that uses state: it counts against the caller's rate limit here, before
        anything is read or written (RateLimited past it)."""
        owner = state_owner(self.principal, self.anonymous_state, what, self.source)
        if self.limiter is not None and not self._admitted:
            self.limiter.admit(self.caller)
            self._admitted = True
        return owner

    def emit(self, widget: str, data: dict[str, Any], fallback: str) -> None:
        """Show a display widget with this call's result. Widgets emitted before a failure are discarded."""
        self.widgets.append(DisplayWidget(widget=widget, data=data, fallback=fallback))
