"""Request checks that run before any JSON-RPC parsing: Host/Origin allowlist, media types, body size, depth."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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
