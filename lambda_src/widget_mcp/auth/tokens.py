"""What a verified access token says, and the rejection of one that cannot be accepted (no JOSE here, so
the endpoint can name these without loading a JWT library when sign-in is off)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


class TokenRejected(ValueError):
    """The bearer token cannot be accepted; `reason` says why in words safe to return to the caller."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class AccessToken:
    subject: str
    scopes: frozenset[str] = field(default_factory=frozenset)
    client_id: str | None = None
    expires_at: int | None = None

    def missing(self, required: Iterable[str]) -> list[str]:
        return sorted(set(required) - self.scopes)
