"""The one place that turns exceptions raised by tools into error results."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import ValidationError

from widget_mcp.storage.documents import StoreUnavailable
from widget_mcp.toolkit.errors import ServiceUnavailable, ToolError
from widget_mcp.toolkit.results import error_wire

logger = logging.getLogger(__name__)

INTERNAL_ERROR_CODE = "internal_error"


def _field_messages(exc: ValidationError) -> dict[str, str]:
    messages: dict[str, str] = {}
    for err in exc.errors(include_url=False, include_input=False):
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        messages.setdefault(where, err["msg"])
    return messages


class InvalidArguments(ValueError):
    """The call's arguments failed the tool's input model. Only these are the caller's mistake: a pydantic error
    raised anywhere else (a handler, or a module it loads on first use) is a server bug, masked like any other."""

    def __init__(self, error: ValidationError) -> None:
        super().__init__(str(error))
        self.error = error


def error_result(exc: BaseException, tool: str) -> tuple[dict[str, Any], str]:
    """Return (wire result, error code). Unknown exceptions are logged and masked: no internals leave."""
    if isinstance(exc, StoreUnavailable):
        logger.warning("tool %s: %s", tool, exc)
        exc = ServiceUnavailable(
            f"{tool} lost contact with its storage while saving; the change may or may not have been made. "
            "Check the current state, then try again."
            if exc.outcome_unknown
            else f"{tool} could not reach its storage; nothing was changed. Try again shortly."
        )
    if isinstance(exc, ToolError):
        return error_wire(exc.code, exc.message, exc.details, retryable=exc.retryable, meta=exc.meta), exc.code
    if isinstance(exc, InvalidArguments):
        fields = _field_messages(exc.error)
        summary = "; ".join(f"{k}: {v}" for k, v in fields.items())
        return error_wire(
            "invalid_arguments", f"Invalid arguments for {tool}: {summary}", {"fields": fields}
        ), "invalid_arguments"
    logger.exception("tool %s failed unexpectedly", tool, extra={"tool": tool})
    return error_wire(
        INTERNAL_ERROR_CODE, f"{tool} failed because of an error on the server; it has been logged."
    ), INTERNAL_ERROR_CODE
