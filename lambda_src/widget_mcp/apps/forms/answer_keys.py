"""The answer key of a form shown in a widget: the widget receives it with the form (in the result's `_meta`, which
hosts hand the widget and not the model) and sends it with the answers; the store keeps only its hash.

A model that calls submit_form with invented answers has no key and is refused, so only the widget that showed the
form (or the elicitation round, or the model where the client could not show it) can answer.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

# The `_meta` key of the result that shows a form: the key its widget sends back as submit_form's `answerKey`.
ANSWER_KEY_META = "dgui_answer_key"
# 144 bits from the OS CSPRNG, URL-safe: as long as a capability id.
KEY_BYTES = 18
MAX_KEY_LENGTH = 64


def new_key() -> tuple[str, str]:
    """A fresh key and the hash the store keeps."""
    key = secrets.token_urlsafe(KEY_BYTES)
    return key, key_hash(key)


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def opens(stored_hash: str | None, key: str | None) -> bool:
    """Whether `key` is the form's answer key, compared in constant time (a form without a key opens to none)."""
    if stored_hash is None or key is None:
        return False
    return hmac.compare_digest(key_hash(key), stored_hash)
