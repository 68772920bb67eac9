"""Errors the toolkit understands. Both subclass ValueError and carry the offending input."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel


class DeclarationError(ValueError):
    """A tool or widget declaration breaks a host rule; raised at import time, never per call."""

    def __init__(self, subject: str, problem: str) -> None:
        super().__init__(f"{subject}: {problem}")
        self.subject = subject
        self.problem = problem


class ToolError(ValueError):
    """A failure the caller should see: becomes an `isError` result (see `results.error_wire`).

    `code` is a stable snake_case identifier (e.g. `game_not_found`); `message` is a sentence for people, naming
    what went wrong and what to do. `details` land beside them in `_meta.error`, for programs (e.g. `fields`: a
    message per argument). `structured` becomes the result's structuredContent: clients validate it against the
    tool's outputSchema even on errors, so it must be an instance of the tool's `output` or `error_output` model
    (e.g. the current game on a conflict), or the call fails as `internal_error`. `meta` joins the result's `_meta`,
    for what only a widget needs to recover.
    """

    code: str = "tool_error"
    retryable: bool = False

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        details: dict[str, Any] | None = None,
        structured: BaseModel | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message
        self.details = details or {}
        self.structured = structured
        self.meta = meta or {}


class InvalidArguments(ToolError):
    """The arguments are wrong in a way the input model cannot say (two that contradict each other, an id of the
    wrong kind): raise it with a message naming the argument, so the model can correct the call."""

    code = "invalid_arguments"


class IdentityRequired(ToolError):
    """A tool that keeps data per user was called without any user identity; anonymous callers own nothing."""

    code = "identity_required"

    def __init__(self, what: str, *, tool: str | None = None) -> None:
        need = f"{tool} works only for an identified user" if tool else f"{what} are kept per user"
        super().__init__(
            f"{need}, and this call carries no user identity (an OAuth token, or the host's openai/subject). Sign "
            "in, or use a host that identifies its user."
        )


class ServiceUnavailable(ToolError):
    """A dependency (e.g. DynamoDB) failed in a way that is worth retrying; nothing was written."""

    code = "service_unavailable"
    retryable = True


class CatalogError(ValueError):
    """A prompt, resource or completion request the server cannot serve; carries what was asked for.

    `kind` is `not_found` (no resource at that URI) or `invalid_params` (an unknown prompt or reference, or
    arguments that fail the prompt's model); the server maps each to its JSON-RPC error.
    """

    def __init__(self, kind: str, subject: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.subject = subject
        self.message = message


class TooLarge(ToolError):
    """What a call would store exceeds the item budget (MAX_ITEM_BYTES); nothing was written."""

    code = "too_large"

    def __init__(self, what: str, size: int, budget: int, advice: str) -> None:
        super().__init__(
            f"This {what} would take {size:,} bytes to store, over the {budget:,}-byte limit for one stored item; "
            f"nothing was saved. {advice}",
            details={"size": size, "budget": budget},
        )


class QuotaExceeded(ToolError):
    """The caller already keeps as many live games or forms as one principal may (QUOTA_LIVE_*); nothing was
    written. `frees_at` (epoch seconds) is when the oldest stops counting; `ending`, if given, says how the caller
    frees a place sooner (e.g. "Answering one of them")."""

    code = "quota_exceeded"

    def __init__(self, what: str, limit: int, frees_at: int, ending: str | None = None) -> None:
        when = datetime.fromtimestamp(frees_at, UTC).strftime("%Y-%m-%d %H:%M UTC")
        sooner = f"{ending} frees its place an hour later; otherwise the" if ending else "The"
        super().__init__(
            f"You already keep {limit} {what}, the most one user may keep at once (callers without sign-in count "
            f"per network address). {sooner} oldest expires by {when}; until then, continue an existing one.",
            details={"limit": limit, "freesAt": frees_at},
        )


class RateLimited(ToolError):
    """The caller made more requests that do work (tool calls and the like) than its rate limit allows in this window
    (RATE_LIMIT_CALLS per RATE_LIMIT_WINDOW_SECONDS); nothing was read or written. `retry_after` is in seconds."""

    code = "rate_limited"
    retryable = True

    def __init__(self, calls: int, window_seconds: int, retry_after: int) -> None:
        super().__init__(
            f"Too many calls: at most {calls} requests that do work are allowed per {window_seconds} s from "
            f"one user (callers without sign-in count per network address). Try again in {retry_after} s.",
            details={"retryAfter": retry_after},
        )
        self.retry_after = retry_after


class TooManyAtOnce(ToolError):
    """Calls by one user (callers without sign-in: one network address) raced to save state counted against the
    same quota, and this one kept losing through every retry; nothing was written. It is the caller's burst, not an
    outage, so it is reported as `rate_limited` with a retry hint (`retryAfter`, seconds), like the rate limit."""

    code = "rate_limited"
    retryable = True

    def __init__(self, retry_after: int) -> None:
        super().__init__(
            "Nothing was saved: too many calls from one user (callers without sign-in count per network address) "
            f"were starting or ending games, forms or tasks at the same moment. Try again in {retry_after} s.",
            details={"retryAfter": retry_after},
        )
        self.retry_after = retry_after
