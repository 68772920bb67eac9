"""Admission before work for requests other than `tools/call` (whose admission is the runtime's, `ToolCall.admit`):
the caller's rate limit is counted first, before the request's parameters cost any CPU or its work any read or
write. Past it, a JSON-RPC error carrying the tool error's code and hint (the endpoint adds `Retry-After`)."""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_REQUEST

from widget_mcp.storage.documents import StoreUnavailable
from widget_mcp.toolkit.errors import RateLimited
from widget_mcp.toolkit.limits import CallLimiter
from widget_mcp.toolkit.ownership import caller_key
from widget_mcp.toolkit.principal import Principal, resolve_principal
from widget_mcp.transport.request_info import RequestInfo

logger = logging.getLogger(__name__)


def request_principal(ctx: ServerRequestContext[Any], *, trust_hints: bool) -> tuple[Principal, RequestInfo | None]:
    """Who sends the request, resolved as for `tools/call` (a verified subject; host hints only without sign-in)."""
    info = ctx.request if isinstance(ctx.request, RequestInfo) else None
    principal = resolve_principal(
        ctx.meta, info.subject if info else None, info.host_subject if info else None, trust_hints=trust_hints
    )
    return principal, info


def request_caller(ctx: ServerRequestContext[Any], *, trust_hints: bool) -> str:
    """Whom per-caller limits count the request against (ownership.caller_key): the principal, or without
    identity the caller's address."""
    principal, info = request_principal(ctx, trust_hints=trust_hints)
    return caller_key(principal, info.source if info is not None and principal.is_anonymous else None)


def admit(limiter: CallLimiter | None, ctx: ServerRequestContext[Any], *, trust_hints: bool) -> None:
    """Count the request against its caller's rate limit; past it, the `rate_limited` JSON-RPC error."""
    if limiter is None:
        return
    try:
        limiter.admit(request_caller(ctx, trust_hints=trust_hints))
    except RateLimited as exc:
        raise rate_limited(exc) from None
    except StoreUnavailable as exc:
        logger.warning("a request could not be admitted: %s", exc)
        data = {"retryable": True, "retryAfter": 1}
        raise MCPError(
            code=INTERNAL_ERROR, message="The server's state could not be reached; try again shortly.", data=data
        ) from None


def rate_limited(exc: RateLimited) -> MCPError:
    """The tool error's code and hint, in a JSON-RPC error (the endpoint adds the Retry-After header)."""
    data = {"error": exc.code, "retryable": True, "retryAfter": exc.retry_after}
    return MCPError(code=INVALID_REQUEST, message=exc.message, data=data)
