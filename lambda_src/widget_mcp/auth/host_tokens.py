"""Per-user tokens a host integration signs with a secret it shares with this server (HOST_TOKEN_SECRET).

A host that knows its signed-in user (the Open WebUI integration knows `__user__`) vouches for that user with a
short-lived HS256 JWT: `{"iss": host, "sub": user id, "scope": "call" | "widget", "iat", "exp"}`. The server
checks the signature, the expiry and the shape, and the user becomes the principal `signed:<iss>/<sub>`, which
no hint can pose as. `call` tokens are the integration's own (server to server, minutes); `widget` tokens ride
in an embedded widget and open only the tools a widget may call (see opaque_origin.py).

Standard library only: the integration signs the same way inside the host's process.

A secret read from AWS (HOST_TOKEN_SECRET_ARN) is read again every REFRESH_SECONDS, so a rotation reaches warm
instances without a deploy. When the value read has changed, the one before it still verifies for
PREVIOUS_GRACE_SECONDS, so the host's copy (Open WebUI's valve) can follow within that time without a token
refused in between. Both bounds count from when the change could first have been seen (REFRESH_SECONDS after the
last read of the old value), so a replaced or unreadable value verifies at most REFRESH_SECONDS +
PREVIOUS_GRACE_SECONDS after the rotation, however long the instance went without a host token or a good read.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from widget_mcp.key_ring import KeyRing

HEADER = "x-widget-mcp-user"
# How long the value a secret read from AWS replaced still verifies (how often it is read again, and how soon a read
# that failed is tried again: key_ring.py).
PREVIOUS_GRACE_SECONDS = 3600
Scope = Literal["call", "widget"]
SCOPES: tuple[Scope, ...] = ("call", "widget")
MAX_TOKEN_CHARS = 2048
# The longest life a token may claim: a widget stays playable in a chat for at most this long.
MAX_LIFETIME_SECONDS = 7 * 24 * 3600
_JWT_HEADER = {"alg": "HS256", "typ": "JWT"}
_NAME = re.compile(r"^[A-Za-z0-9_.:@+=\-]{1,128}$")


class HostTokenRejected(ValueError):
    """A host token that is malformed, forged, expired or out of scope; the message says which, never the token."""


@dataclass(frozen=True, slots=True)
class HostUser:
    issuer: str
    subject: str
    scope: Scope

    @property
    def principal_subject(self) -> str:
        return f"{self.issuer}/{self.subject}"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sign(secret: str, issuer: str, subject: str, scope: Scope, lifetime_seconds: int, now: float | None = None) -> str:
    """The token a host sends (the integration has its own copy of this function)."""
    issued = int(time.time() if now is None else now)
    claims = {"iss": issuer, "sub": subject, "scope": scope, "iat": issued, "exp": issued + lifetime_seconds}
    head = _b64(json.dumps(_JWT_HEADER, separators=(",", ":")).encode())
    body = _b64(json.dumps(claims, separators=(",", ":")).encode())
    mac = hmac.new(secret.encode(), f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{_b64(mac)}"


class HostTokens:
    """Verifies host tokens. `secret` is the shared secret, or where to get it (HOST_TOKEN_SECRET_ARN: a read from
    AWS), called when the first token arrives and again every REFRESH_SECONDS after (`clock`, monotonic seconds);
    what its first read raises reaches the caller, a later failure keeps the value read before (key_ring.py)."""

    def __init__(
        self,
        secret: str | Callable[[], str],
        leeway_seconds: int = 30,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if callable(secret):
            source = secret
            self._keys = KeyRing(
                lambda: source().encode(), grace_seconds=PREVIOUS_GRACE_SECONDS, clock=clock, what="host-token secret"
            )
        else:
            self._keys = KeyRing.fixed(secret.encode())
        self._leeway = leeway_seconds

    def verify(self, token: str, now: float | None = None) -> HostUser:
        if len(token) > MAX_TOKEN_CHARS:
            raise HostTokenRejected("host token too long")
        parts = token.split(".")
        if len(parts) != 3:
            raise HostTokenRejected("host token is not a compact JWT")
        head, body, mac = parts
        signed = f"{head}.{body}".encode()
        # The signature as this server writes it (unpadded base64url), compared as text: a padded or otherwise
        # re-encoded copy of a genuine one is refused, so a token has exactly one accepted spelling.
        expected = [_b64(hmac.new(key, signed, hashlib.sha256).digest()).encode() for key in self._keys.accepted()]
        try:
            header, claims = json.loads(_unb64(head)), json.loads(_unb64(body))
        except (binascii.Error, ValueError, UnicodeDecodeError):
            raise HostTokenRejected("host token is not valid base64url JSON") from None
        # Every key is compared (no early exit), so timing does not tell which one a forgery came close to.
        if not sum(hmac.compare_digest(mac.encode(), digest) for digest in expected):
            raise HostTokenRejected("host token signature does not verify")
        if header != _JWT_HEADER:
            raise HostTokenRejected("host token header must be exactly HS256 JWT")
        return self._user(claims, time.time() if now is None else now)

    def _user(self, claims: Any, now: float) -> HostUser:
        if not isinstance(claims, dict):
            raise HostTokenRejected("host token claims must be an object")
        issuer, subject, scope = claims.get("iss"), claims.get("sub"), claims.get("scope")
        issued, expires = claims.get("iat"), claims.get("exp")
        if not (
            isinstance(issuer, str)
            and _NAME.fullmatch(issuer)
            and isinstance(subject, str)
            and _NAME.fullmatch(subject)
        ):
            raise HostTokenRejected("host token iss and sub must be short plain names")
        if scope not in SCOPES:
            raise HostTokenRejected("host token scope must be call or widget")
        if not (isinstance(issued, int) and isinstance(expires, int)) or isinstance(issued, bool):
            raise HostTokenRejected("host token iat and exp must be integers")
        if expires - issued > MAX_LIFETIME_SECONDS or issued > now + self._leeway:
            raise HostTokenRejected("host token lifetime is out of bounds")
        if expires <= now - self._leeway:
            raise HostTokenRejected("host token expired")
        return HostUser(issuer, subject, scope)
