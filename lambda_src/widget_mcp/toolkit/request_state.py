"""The signed `requestState` of an input request: what lets any stateless instance resume a call safely.

The client echoes the state back verbatim, so the server treats it as hostile: it is an HMAC-SHA256 over the
answers given so far, the tool, a digest of its arguments, a digest of the caller's principal and an expiry.
A state that was altered, has expired, or was issued for another call (another tool, other arguments, another
user) is refused before the handler runs. It is signed, not encrypted: it holds only the client's own answers.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from widget_mcp.key_ring import KeyRing
from widget_mcp.toolkit.inputs import INVALID_PARAMS, ProtocolRefusal

_PREFIX = "v1."
_LABEL = b"widget-mcp/request-state/v1."


class InvalidRequestState(ProtocolRefusal):
    """The echoed `requestState` cannot be trusted; `reason` is `tampered`, `expired` or `other_call`."""

    MESSAGES: ClassVar[dict[str, str]] = {
        "tampered": "The requestState was not issued by this server or was altered. Call the tool again without "
        "inputResponses and requestState to start over.",
        "expired": "The requestState has expired. Call the tool again without inputResponses and requestState to "
        "start over.",
        "other_call": "The requestState was issued for a different call (another tool, other arguments or another "
        "user). Send it back only with the call that received it.",
    }

    def __init__(self, reason: str, token: object) -> None:
        super().__init__(INVALID_PARAMS, self.MESSAGES[reason], {"reason": f"request_state_{reason}"})
        self.reason = reason
        self.token = token


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _digest(value: Any) -> str:
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)
    return _b64(hashlib.sha256(canonical.encode()).digest()[:16])


class RequestStates:
    """Seals and opens request states, and signs the other tokens that share their key (`sign`, `verify`).

    `key` is a KeyRing (a key read again every so often, the one it replaced accepted for a grace: key_ring.py), or
    a function called on first use whose key is then kept. Signatures are compared as text in the one encoding this
    class writes (unpadded base64url), so a signed token has exactly one accepted spelling.
    """

    def __init__(
        self, key: KeyRing | Callable[[], bytes], ttl_seconds: float, clock: Callable[[], float] = time.time
    ) -> None:
        self._keys = key if isinstance(key, KeyRing) else KeyRing(key, grace_seconds=0, refresh_seconds=None)
        self.ttl_seconds = ttl_seconds
        self._clock = clock

    def _macs(self, label: bytes, text: str, keys: tuple[bytes, ...]) -> list[str]:
        return [_b64(hmac.new(key, label + text.encode(), hashlib.sha256).digest()) for key in keys]

    def _verify(self, label: bytes, text: str, mac: str) -> bool:
        """Whether `mac` is `text`'s signature under a key still accepted; reading the key may raise
        SecretUnavailable. Every key is compared (no early exit), so timing tells nothing about which."""
        expected = self._macs(label, text, self._keys.accepted())
        return sum(hmac.compare_digest(mac.encode(), digest.encode()) for digest in expected) > 0

    def sign(self, label: str, text: str) -> str:
        """An HMAC of `text` under the current key, for `label`'s purpose alone (the other signed tokens: see
        transport/resumption.py)."""
        return self._macs(f"widget-mcp/{label}/".encode(), text, (self._keys.current(),))[0]

    def verify(self, label: str, text: str, mac: str) -> bool:
        """Whether `mac` is what `sign(label, text)` gave, under the current key or the one it replaced."""
        return self._verify(f"widget-mcp/{label}/".encode(), text, mac)

    def seal(self, tool: str, arguments: Mapping[str, Any], principal: str, answers: Mapping[str, Any]) -> str:
        claims = {
            "t": tool,
            "a": _digest(arguments),
            "p": _digest(principal),
            "exp": int(self._clock() + self.ttl_seconds),
            "ans": dict(answers),
        }
        body = _b64(json.dumps(claims, separators=(",", ":"), ensure_ascii=True).encode())
        return f"{_PREFIX}{body}.{self._macs(_LABEL, body, (self._keys.current(),))[0]}"

    def open(self, token: object, tool: str, arguments: Mapping[str, Any], principal: str) -> dict[str, Any]:
        """The answers a state carries, after checking its signature, expiry and binding to this call."""
        if not isinstance(token, str) or not token.startswith(_PREFIX) or token.count(".") != 2:
            raise InvalidRequestState("tampered", token)
        body, _, mac = token[len(_PREFIX) :].partition(".")
        if not self._verify(_LABEL, body, mac):  # a key that cannot be read raises SecretUnavailable (503)
            raise InvalidRequestState("tampered", token)
        try:
            claims = json.loads(_unb64(body))
        except ValueError:
            raise InvalidRequestState("tampered", token) from None
        if not isinstance(claims, dict) or not isinstance(claims.get("ans"), dict):
            raise InvalidRequestState("tampered", token)
        expiry = claims.get("exp")
        if not isinstance(expiry, int) or not self._clock() < expiry:
            raise InvalidRequestState("expired", token)
        if (claims.get("t"), claims.get("a"), claims.get("p")) != (tool, _digest(arguments), _digest(principal)):
            raise InvalidRequestState("other_call", token)
        answers: dict[str, Any] = claims["ans"]
        return answers
