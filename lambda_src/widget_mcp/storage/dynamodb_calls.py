"""What the DynamoDB adapters share about a call that failed: its error code and status, whether botocore retried
it, and the StoreUnavailable it becomes."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from widget_mcp.storage.documents import StoreUnavailable

CONFLICT = "ConditionalCheckFailedException"


def code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def status(exc: ClientError) -> int:
    return int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0)


def retried(exc: ClientError) -> bool:
    return int(exc.response.get("ResponseMetadata", {}).get("RetryAttempts") or 0) > 0


def own_earlier_attempt(exc: ClientError, item: dict[str, Any]) -> bool:
    """Whether the condition failed only because botocore retried a put whose answer was lost: the stored item
    is byte for byte the one this call writes (its version and timestamps included)."""
    return retried(exc) and exc.response.get("Item") == item


def unavailable(action: str, exc: Exception, *, outcome_unknown: bool = False) -> StoreUnavailable:
    reason = code(exc) if isinstance(exc, ClientError) else type(exc).__name__
    return StoreUnavailable(f"{action} failed: {reason}", outcome_unknown=outcome_unknown)
