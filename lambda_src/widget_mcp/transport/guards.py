"""Request checks that run before any JSON-RPC parsing: Host/Origin allowlist, media types, strict JSON, depth."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any
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
        if sep and port.isdigit() and not name.endswith(":"):
            return name in self._any_port or name in self._exact
        return host in self._any_port

    def allows_origin(self, origin: str) -> bool:
        parts = urlsplit(origin)
        return parts.scheme in ("http", "https") and self.allows(parts.netloc)


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
