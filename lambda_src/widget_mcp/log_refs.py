"""The pseudonymous reference a tool call's log line carries for the widget session (game, form) it acted on.

`ref` is the first REF_CHARS characters of base64url(HMAC-SHA256(key, "widget-mcp/log-ref/" + id)), under the key
that signs input requests' requestState (REQUEST_STATE_SECRET, in AWS the stack's REQUEST_STATE_SECRET_ARN), with a
label of its own, so a reference is never a valid signature of anything else. Without the key a reference cannot be
turned back into an id, nor computed from one; an operator who holds the key computes the reference of the id a user
gives (`make log-ref ID=…`) and runs the saved query `one-game` on it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
from collections.abc import Callable

LABEL = "log-ref"
REF_CHARS = 16  # 96 bits: no two sessions of one stack share a reference in practice

logger = logging.getLogger(__name__)


def reference(key: bytes, session_id: str) -> str:
    """The reference of `session_id` under `key` (what `SessionRefs` logs while `key` is the current one)."""
    mac = hmac.new(key, f"widget-mcp/{LABEL}/".encode() + session_id.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")[:REF_CHARS]


class SessionRefs:
    """References under the requestState key as the server holds it: `sign` is `RequestStates.sign`, whose key ring
    reads the secret on first use and again every few minutes (key_ring.py), never once per call."""

    def __init__(self, sign: Callable[[str, str], str]) -> None:
        self._sign = sign

    def __call__(self, session_id: str) -> str | None:
        """The reference, or None when the key cannot be read (the call's line is written without one)."""
        try:
            return self._sign(LABEL, session_id)[:REF_CHARS]
        except ValueError:  # SecretUnavailable: the key ring has logged why
            return None
