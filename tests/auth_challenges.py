"""A strict reader of `WWW-Authenticate` values (RFC 9110 11.6.1 and 11.2, RFC 6750 3), for tests that must show
a challenge is well formed rather than only that it contains some text."""

from __future__ import annotations

import re

_TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
# quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE (RFC 9110 5.6.4)
_QUOTED = r'"(?:[\t !#-\[\]-~\x80-\xff]|\\[\t -~\x80-\xff])*"'
_PARAM = re.compile(rf"({_TOKEN})[ \t]*=[ \t]*({_TOKEN}|{_QUOTED})")
_SEPARATOR = re.compile(r"[ \t]*,[ \t]*")
# RFC 6750 3: what `error`, `error_description` and `scope` may hold.
_RFC6750_VALUE = re.compile(r"[\x20\x21\x23-\x5b\x5d-\x7e]*")
BEARER_ERRORS = frozenset({"invalid_request", "invalid_token", "insufficient_scope"})
BEARER_PARAMS = frozenset({"realm", "scope", "error", "error_description", "error_uri", "resource_metadata"})


class MalformedChallenge(ValueError):
    pass


def parse_challenge(value: str) -> tuple[str, dict[str, str]]:
    """One challenge (`Bearer a="b", c=d`) as its scheme and its parameters, values unquoted; raises
    MalformedChallenge for anything the grammar does not allow, or a parameter named twice (RFC 9110 11.2)."""
    try:
        value.encode("latin-1")
    except UnicodeEncodeError as exc:
        raise MalformedChallenge(f"not a Latin-1 field value: {value!r}") from exc
    scheme = re.match(rf"({_TOKEN})(?: +|$)", value)
    if scheme is None:
        raise MalformedChallenge(f"no auth-scheme: {value!r}")
    params: dict[str, str] = {}
    position = scheme.end()
    while position < len(value):
        param = _PARAM.match(value, position)
        if param is None:
            raise MalformedChallenge(f"not an auth-param at {position}: {value!r}")
        name, raw = param.group(1).lower(), param.group(2)
        if name in params:
            raise MalformedChallenge(f"{name} appears twice: {value!r}")
        params[name] = re.sub(r"\\(.)", r"\1", raw[1:-1]) if raw.startswith('"') else raw
        position = param.end()
        if position < len(value):
            separator = _SEPARATOR.match(value, position)
            if separator is None or separator.end() == len(value):
                raise MalformedChallenge(f"expected ', ' and another auth-param at {position}: {value!r}")
            position = separator.end()
    return scheme.group(1), params


def parse_bearer_challenge(value: str) -> dict[str, str]:
    """A `Bearer` challenge's parameters, checked against RFC 6750 too: known parameters, a known error code,
    and only the characters RFC 6750 allows in `error`, `error_description` and `scope`."""
    scheme, params = parse_challenge(value)
    if scheme.lower() != "bearer":
        raise MalformedChallenge(f"not a Bearer challenge: {value!r}")
    unknown = set(params) - BEARER_PARAMS
    if unknown:
        raise MalformedChallenge(f"unknown parameters {sorted(unknown)}: {value!r}")
    if "error" in params and params["error"] not in BEARER_ERRORS:
        raise MalformedChallenge(f"unknown error code: {value!r}")
    for name in ("error", "error_description", "scope"):
        if name in params and not _RFC6750_VALUE.fullmatch(params[name]):
            raise MalformedChallenge(f"{name} holds characters RFC 6750 forbids: {value!r}")
    return params
