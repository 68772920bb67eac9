"""The one place that turns exceptions raised by tools into error results."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import ValidationError

from widget_mcp.storage.documents import StoreBusy, StoreUnavailable
from widget_mcp.toolkit.errors import ServiceUnavailable, ToolError, TooManyAtOnce
from widget_mcp.toolkit.results import error_wire
from widget_mcp.toolkit.tools import ToolSpec

logger = logging.getLogger(__name__)

INTERNAL_ERROR_CODE = "internal_error"


def _field_messages(exc: ValidationError) -> dict[str, str]:
    messages: dict[str, str] = {}
    for err in exc.errors(include_url=False, include_input=False):
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        messages.setdefault(where, err["msg"])
    return messages


class UndeclaredPayload(ValueError):
    """A ToolError carried structuredContent that is an instance of neither the tool's `output` nor its
    `error_output` model, so it may not conform to the outputSchema clients check it against."""

    def __init__(self, tool: str, error: ToolError) -> None:
        super().__init__(
            f"tool {tool} raised ToolError({error.code!r}) with a structured {type(error.structured).__name__}, "
            "which is neither its output nor its error_output model: declare it or leave structured out"
        )
        self.error = error


class InvalidArguments(ValueError):
    """The call's arguments failed the tool's input model. Only these are the caller's mistake: a pydantic error
    raised anywhere else (a handler, or a module it loads on first use) is a server bug, masked like any other."""

    def __init__(self, error: ValidationError) -> None:
        super().__init__(str(error))
        self.error = error


def error_result(exc: BaseException, tool: ToolSpec) -> tuple[dict[str, Any], str]:
    """Return (wire result, error code). Unknown exceptions are logged and masked: no internals leave."""
    name = tool.name
    if isinstance(exc, StoreBusy):
        logger.warning("tool %s: %s", name, exc)
        exc = TooManyAtOnce(exc.retry_after)
    elif isinstance(exc, StoreUnavailable):
        logger.warning("tool %s: %s", name, exc)
        exc = ServiceUnavailable(
            f"{name} lost contact with its storage while saving; the change may or may not have been made. "
            "Check the current state, then try again."
            if exc.outcome_unknown
            else f"{name} could not reach its storage; nothing was changed. Try again shortly."
        )
    if isinstance(exc, ToolError) and exc.structured is not None and not tool.declares(exc.structured):
        # Clients validate structuredContent against the outputSchema on errors too: a payload the tool did not
        # declare would reach them as a schema mismatch instead of the sentence. A bug, so masked and logged.
        logger.error("%s", UndeclaredPayload(name, exc), exc_info=exc, extra={"tool": name})
        return _internal_error(name), INTERNAL_ERROR_CODE
    if isinstance(exc, ToolError):
        structured = None if exc.structured is None else exc.structured.model_dump(mode="json", by_alias=True)
        wire = error_wire(
            exc.code, exc.message, details=exc.details, structured=structured, retryable=exc.retryable, meta=exc.meta
        )
        return wire, exc.code
    if isinstance(exc, InvalidArguments):
        fields = _field_messages(exc.error)
        summary = "; ".join(f"{k}: {v}" for k, v in fields.items())
        message = f"Invalid arguments for {name}: {summary}"
        return error_wire("invalid_arguments", message, details={"fields": fields}), "invalid_arguments"
    logger.exception("tool %s failed unexpectedly", name, extra={"tool": name})
    return _internal_error(name), INTERNAL_ERROR_CODE


def _internal_error(tool: str) -> dict[str, Any]:
    return error_wire(INTERNAL_ERROR_CODE, f"{tool} failed because of an error on the server; it has been logged.")
