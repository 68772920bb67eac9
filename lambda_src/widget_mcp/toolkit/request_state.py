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
    """Seals and opens request states. `key` is called on first use (it may fetch a secret), then kept."""

    def __init__(self, key: Callable[[], bytes], ttl_seconds: float, clock: Callable[[], float] = time.time) -> None:
        self._key_source = key
        self._key: bytes | None = None
        self.ttl_seconds = ttl_seconds
        self._clock = clock

    def _hmac(self, label: bytes, text: str) -> bytes:
        if self._key is None:
            self._key = self._key_source()
        return hmac.new(self._key, label + text.encode(), hashlib.sha256).digest()

    def _mac(self, body: str) -> bytes:
        return self._hmac(_LABEL, body)

    def sign(self, label: str, text: str) -> str:
        """An HMAC of `text` under this key, for `label`'s purpose alone (the other signed tokens: see
        transport/resumption.py)."""
        return _b64(self._hmac(f"widget-mcp/{label}/".encode(), text))

    def seal(self, tool: str, arguments: Mapping[str, Any], principal: str, answers: Mapping[str, Any]) -> str:
        claims = {
            "t": tool,
            "a": _digest(arguments),
            "p": _digest(principal),
            "exp": int(self._clock() + self.ttl_seconds),
            "ans": dict(answers),
        }
        body = _b64(json.dumps(claims, separators=(",", ":"), ensure_ascii=True).encode())
        return f"{_PREFIX}{body}.{_b64(self._mac(body))}"

    def open(self, token: object, tool: str, arguments: Mapping[str, Any], principal: str) -> dict[str, Any]:
        """The answers a state carries, after checking its signature, expiry and binding to this call."""
        if not isinstance(token, str) or not token.startswith(_PREFIX) or token.count(".") != 2:
            raise InvalidRequestState("tampered", token)
        body, _, mac = token[len(_PREFIX) :].partition(".")
        try:
            genuine = hmac.compare_digest(_unb64(mac), self._mac(body))
            claims = json.loads(_unb64(body)) if genuine else None
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
