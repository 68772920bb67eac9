"""Request checks that run before any JSON-RPC parsing: Host/Origin allowlist, CORS, media types, strict JSON, depth."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal
from urllib.parse import urlsplit


class HostAllowlist:
    """Matches `Host` (and `Origin`) against patterns such as `api.example.com`, `localhost:*`, `[::1]:8000`.

    DNS-rebinding protection must stay on behind API Gateway, so the allowlist names the real hosts
    instead of disabling the check.
    """

    def __init__(self, patterns: Iterable[str]) -> None:
        self._exact: set[str] = set()
        self._any_port: set[str] = set()
        for pattern in patterns:
            pattern = pattern.strip().lower()
            if pattern.endswith(":*"):
                self._any_port.add(pattern[:-2])
            else:
                self._exact.add(pattern)

    def allows(self, host: str | None) -> bool:
        if not host:
            return False
        host = host.strip().lower()
        if host in self._exact:
            return True
        name, sep, port = host.rpartition(":")
        # ASCII digits only: str.isdigit() also takes "²" and "١", which would then be echoed in URLs we build.
        if sep and port.isascii() and port.isdigit() and not name.endswith(":"):
            return name in self._any_port or name in self._exact
        return host in self._any_port

    def allows_origin(self, origin: str) -> bool:
        parts = urlsplit(origin)
        return parts.scheme in ("http", "https") and self.allows(parts.netloc)


_DEFAULT_PORTS = {"http": 80, "https": 443}
ANY_PORT = -1


def origin_key(origin: str) -> tuple[str, str, int] | None:
    """`(scheme, host, port)` of a serialized http(s) origin, the default port filled in; None for anything else.

    `null`, paths, credentials and bad ports are not origins. A trailing `:*` yields the port `ANY_PORT`.
    """
    text = origin.strip()
    any_port = text.endswith(":*")
    try:
        parts = urlsplit(text.removesuffix(":*") if any_port else text)
        port = parts.port
    except ValueError:
        return None
    if (
        parts.scheme not in _DEFAULT_PORTS
        or not parts.hostname
        or "*" in parts.netloc
        or parts.path
        or parts.query
        or parts.fragment
        or "@" in parts.netloc
        or (any_port and port is not None)
    ):
        return None
    return parts.scheme, parts.hostname, ANY_PORT if any_port else (port or _DEFAULT_PORTS[parts.scheme])


# What a browser may send to /mcp cross-origin (MCP's Streamable HTTP headers, both eras, and a bearer token),
# and what it may read back (the protocol headers, the OAuth challenge, and when a rate-limited caller may retry).
CORS_ALLOW_METHODS = "POST, OPTIONS"
CORS_ALLOW_HEADERS = (
    "accept, authorization, content-type, last-event-id, mcp-method, mcp-name, mcp-protocol-version, mcp-session-id, "
    "x-widget-mcp-user"
)
CORS_EXPOSE_HEADERS = "mcp-protocol-version, mcp-session-id, retry-after, www-authenticate"
# Chromium caps a cached preflight at two hours (Firefox at a day): longer buys nothing.
CORS_MAX_AGE_SECONDS = 7200


CorsVerdict = Literal["serve", "refuse", "not_preflight", "preflight"]


class CorsPolicy:
    """The browser origins (CORS_ORIGINS) allowed to call `/mcp` cross-origin, and the headers they get.

    Entries are exact origins (`https://app.example.com`; the default port may be left out) or `scheme://host:*`
    for any port of one host. Origins are compared as (scheme, host, port), so case and an explicit default port
    do not matter. Never `*`: the allowed origin is echoed back, with `Vary: Origin`.
    """

    def __init__(self, origins: Iterable[str] = ()) -> None:
        self._exact: set[tuple[str, str, int]] = set()
        self._any_port: set[tuple[str, str]] = set()
        for origin in origins:
            key = origin_key(origin)
            if key is None:
                raise ValueError(f"not an origin: {origin!r}")
            scheme, host, port = key
            if port == ANY_PORT:
                self._any_port.add((scheme, host))
            else:
                self._exact.add(key)

    def lists(self, origin: str | None) -> bool:
        """Whether a request's `Origin` header names a listed origin."""
        if not origin or origin.strip().endswith(":*"):
            return False
        key = origin_key(origin)
        return key is not None and (key in self._exact or key[:2] in self._any_port)

    def screen(self, method: str, origin: str | None, asks_preflight: bool, hosts: HostAllowlist) -> CorsVerdict:
        """How `/mcp` and the routes beside it answer a request, as far as its `Origin` decides.

        `asks_preflight`: the request carries `Access-Control-Request-Method`. "refuse" (403) an origin neither
        listed nor the server's own (it matches the Host allowlist), and a preflight from any origin but a listed
        one (same-origin pages never preflight); "not_preflight" (405) an `OPTIONS` that is no CORS preflight;
        "preflight" (204 with the preflight headers) a listed origin's preflight; else "serve".
        """
        if not origin:
            return "not_preflight" if method == "OPTIONS" else "serve"
        listed = self.lists(origin)
        if not listed and not hosts.allows_origin(origin):
            return "refuse"
        if method != "OPTIONS":
            return "serve"
        if not asks_preflight:
            return "not_preflight"
        return "preflight" if listed else "refuse"

    @classmethod
    def preflight_headers(cls, methods: str) -> tuple[tuple[str, str], ...]:
        """`PREFLIGHT_HEADERS` for a route that allows `methods` (the routes beside `/mcp`)."""
        return (("access-control-allow-methods", methods), *cls.PREFLIGHT_HEADERS[1:])

    # The answer to a listed origin's preflight (`OPTIONS` with `Access-Control-Request-Method`), besides the
    # `reply_headers` every reply to that origin gets.
    PREFLIGHT_HEADERS: tuple[tuple[str, str], ...] = (
        ("access-control-allow-methods", CORS_ALLOW_METHODS),
        ("access-control-allow-headers", CORS_ALLOW_HEADERS),
        ("access-control-max-age", str(CORS_MAX_AGE_SECONDS)),
    )

    @staticmethod
    def reply_headers(origin: str) -> tuple[tuple[str, str], ...]:
        """Added to every reply to a listed origin (errors and preflights included) so its page may read it."""
        return (
            ("access-control-allow-origin", origin),
            ("access-control-expose-headers", CORS_EXPOSE_HEADERS),
            ("vary", "Origin"),
        )


def media_type(headers: Mapping[str, str], name: str) -> str:
    """The bare media type of a header (`application/json; charset=utf-8` → `application/json`)."""
    return headers.get(name, "").split(";", 1)[0].strip().lower()


def accepts_json(headers: Mapping[str, str]) -> bool:
    """An absent Accept means anything; otherwise it must name JSON or a wildcard."""
    accept = headers.get("accept")
    if accept is None or not accept.strip():
        return True
    kinds = {part.split(";", 1)[0].strip().lower() for part in accept.split(",")}
    return bool(kinds & {"application/json", "application/*", "*/*"})


def too_deep(value: object, limit: int) -> bool:
    """Whether a decoded JSON value nests deeper than `limit` (iterative: no recursion on hostile input)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Iterable[object] = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range for a JSON number")
    return value


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_STRICT_DECODER = json.JSONDecoder(parse_constant=_no_constants, parse_float=_finite)


def decode_json(body: bytes) -> Any:
    """Strict JSON: UTF-8 (a leading BOM tolerated), no NaN or Infinity, no number that overflows to infinity.

    Python's decoder accepts all of those, and what it accepts could otherwise be echoed back as invalid JSON.
    """
    return _STRICT_DECODER.decode(body.decode("utf-8").removeprefix("\ufeff"))


# `\ud800`-`\udfff` escapes: the only way valid UTF-8 JSON can spell a lone surrogate.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def may_hold_lone_surrogates(body: bytes) -> bool:
    """A cheap pre-check on the raw body: false means no decoded string can hold a lone surrogate."""
    return _SURROGATE_ESCAPE.search(body) is not None


def has_lone_surrogate(value: object) -> bool:
    """Whether any string (key or value) in a decoded JSON value cannot be encoded as UTF-8."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if not node.isascii():
                try:
                    node.encode("utf-8")
                except UnicodeEncodeError:
                    return True
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False
