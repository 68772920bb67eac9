"""Who owns state on a call: the verified OAuth subject, else host-provided hints, else nobody in particular."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

PrincipalSource = Literal["oauth", "signed", "openai", "host", "anonymous"]

OPENAI_SUBJECT = "openai/subject"
# MCP Apps hosts have no standard user hint yet; this key is read the same way when a host sends one.
HOST_USER_HINT = "io.modelcontextprotocol/user"

_SAFE = re.compile(r"^[A-Za-z0-9_.:@/+=\-]{1,200}$")


@dataclass(frozen=True, slots=True)
class Principal:
    """`key` namespaces the id by its source, so an OpenAI subject can never pose as an OAuth subject."""

    source: PrincipalSource
    subject: str

    @property
    def key(self) -> str:
        return f"{self.source}:{self.subject}"

    @property
    def is_anonymous(self) -> bool:
        return self.source == "anonymous"


ANONYMOUS = Principal("anonymous", "-")
"""The caller of a call that carries no identity at all: it owns nothing, so state it makes is a capability."""


def _hint(meta: Mapping[str, Any], key: str) -> str | None:
    value = meta.get(key)
    if isinstance(value, str) and _SAFE.match(value):
        return value
    if isinstance(value, Mapping):  # {"id": "..."} shaped hints
        inner = value.get("id")
        if isinstance(inner, str) and _SAFE.match(inner):
            return inner
    return None


def resolve_principal(
    meta: Mapping[str, Any] | None,
    verified_subject: str | None = None,
    host_subject: str | None = None,
    *,
    trust_hints: bool = True,
) -> Principal:
    """`host_subject`: a user a host vouched for with a signed token (`<host>/<user id>`; auth/host_tokens.py)."""
    if verified_subject:
        return Principal("oauth", verified_subject)
    if host_subject:
        return Principal("signed", host_subject)
    if not trust_hints:
        return ANONYMOUS
    meta = meta or {}
    subject = _hint(meta, OPENAI_SUBJECT)
    if subject:
        return Principal("openai", subject)
    hint = _hint(meta, HOST_USER_HINT)
    if hint:
        return Principal("host", hint)
    return ANONYMOUS
