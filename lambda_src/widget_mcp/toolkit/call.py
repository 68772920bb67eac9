"""The per-call context a tool handler receives."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from widget_mcp.toolkit.ownership import AnonymousState, StateOwner, state_owner
from widget_mcp.toolkit.principal import Principal
from widget_mcp.toolkit.results import DisplayWidget


@dataclass
class ToolCall:
    tool: str
    principal: Principal
    request_meta: Mapping[str, Any] = field(default_factory=dict)
    request_id: str | None = None
    widgets: list[DisplayWidget] = field(default_factory=list)
    # What a call without identity may do with state (the ANONYMOUS_STATE setting; always refuse with sign-in).
    anonymous_state: AnonymousState = "refuse"

    def owner(self, what: str) -> StateOwner:
        """Whose state this call reaches. `what` names the state ("Games") in the identity_required message."""
        return state_owner(self.principal, self.anonymous_state, what)

    def emit(self, widget: str, data: dict[str, Any], fallback: str) -> None:
        """Show a display widget with this call's result. Widgets emitted before a failure are discarded."""
        self.widgets.append(DisplayWidget(widget=widget, data=data, fallback=fallback))
