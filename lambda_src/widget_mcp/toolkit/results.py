"""The three-tier tool result (structuredContent, content, _meta) and display widgets."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from widget_mcp.toolkit.content import ContentBlock

WIDGET_SESSION_KEY = "openai/widgetSessionId"
"""The `_meta` key that ties a result's widget to one session of it (a game's id), so a host keeps its state."""

# Built once: `json.dumps` with options builds a new encoder on every call.
_COMPACT_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def structured_text(structured: Mapping[str, Any]) -> dict[str, Any]:
    """structuredContent serialized as a text block (compact JSON, non-ASCII kept), as the MCP spec asks of a tool
    that returns structured content: many agent frameworks hand their model only the text, and it needs the state
    (a FEN, a ply, a form's answers) as much as the widget does."""
    return {"type": "text", "text": _COMPACT_JSON.encode(structured)}


@dataclass(frozen=True, slots=True)
class DisplayWidget:
    """One seed-000 display widget: rendered by `widget` type, or shown as `fallback` text."""

    widget: str
    data: dict[str, Any]
    fallback: str

    def to_wire(self) -> dict[str, Any]:
        return {"type": "widget", "widget": self.widget, "data": self.data, "fallback": self.fallback}


@dataclass(slots=True)
class ToolResult:
    """What a tool returns on success.

    `structured` is seen by the model and the widget (keep it small); `narration` is the text for the
    model and for hosts without UI; `meta` reaches only the widget (history, large or private data).
    On the wire, `content` is the narration, then `structured` serialized as JSON (clients that pass the model only
    the text still give it the whole result), then the blocks given in `content` (images, audio, embedded
    resources, resource links), then display widgets' fallbacks in the order they were emitted.
    """

    structured: BaseModel | dict[str, Any]
    narration: str
    meta: dict[str, Any] = field(default_factory=dict)
    widget_session_id: str | None = None
    content: Sequence[ContentBlock] = ()

    def structured_dict(self) -> dict[str, Any]:
        if isinstance(self.structured, BaseModel):
            return self.structured.model_dump(mode="json", by_alias=True)
        return self.structured

    def to_wire(self, widgets: list[DisplayWidget]) -> dict[str, Any]:
        meta = dict(self.meta)
        if self.widget_session_id is not None:
            meta[WIDGET_SESSION_KEY] = self.widget_session_id
        structured = self.structured_dict()
        content = [{"type": "text", "text": self.narration}, structured_text(structured)]
        if self.content:
            content.extend(block.to_wire() for block in self.content)
        if widgets:
            meta["widgets"] = [w.to_wire() for w in widgets]
            content.extend({"type": "text", "text": w.fallback} for w in widgets)
        wire: dict[str, Any] = {"content": content, "structuredContent": structured, "isError": False}
        if meta:
            wire["_meta"] = meta
        return wire


def error_wire(
    code: str,
    message: str,
    *,
    details: Mapping[str, Any] | None = None,
    structured: dict[str, Any] | None = None,
    retryable: bool = False,
    meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """An error result: `message` for the model in `content`, `{code, message, **details}` in `_meta.error` for
    widgets and programs (every client passes `_meta` through unvalidated), and `structured` only when the caller
    checked it conforms to the tool's outputSchema: clients may validate structuredContent on errors too. A
    `structured` is also serialized after the message, as on a success (e.g. the current game on a conflict)."""
    error: dict[str, Any] = {"code": code, "message": message}
    error.update((key, value) for key, value in (details or {}).items() if key not in error)
    if retryable:
        error["retryable"] = True
    content = [{"type": "text", "text": message}]
    if structured is not None:
        content.append(structured_text(structured))
    wire: dict[str, Any] = {
        "content": content,
        "isError": True,
        "_meta": {**(meta or {}), "error": error},
    }
    if structured is not None:
        wire["structuredContent"] = structured
    return wire
