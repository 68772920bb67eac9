"""One sentence for a check that could not run: the endpoint is unreachable, speaks no MCP, or fails TLS."""

from __future__ import annotations

import socket
import ssl
from collections.abc import Iterator
from urllib.parse import urlsplit

from mcp.shared.exceptions import MCPError


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    """The exceptions inside (nested) exception groups, which the client's task groups wrap failures in."""
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from _leaves(inner)
    else:
        yield exc


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _named(exc: BaseException, *names: str) -> bool:
    return any(cls.__name__ in names for cls in type(exc).__mro__)


def explain(url: str, failure: BaseException) -> str:
    host = urlsplit(url).hostname or url
    for leaf in _leaves(failure):
        chain = list(_chain(leaf))
        tls = next((e for e in chain if isinstance(e, ssl.SSLError)), None)
        if tls is not None:
            reason = getattr(tls, "reason", None) or str(tls)
            return f"cannot check {url}: the TLS handshake with {host} failed ({reason})"
        if any(isinstance(e, socket.gaierror) for e in chain):
            return f"cannot check {url}: the name {host} does not resolve"
        if any(_named(e, "TimeoutException", "TimeoutError") for e in chain):
            return f"cannot check {url}: {host} did not answer in time"
        if any(_named(e, "ConnectError") or isinstance(e, ConnectionError) for e in chain):
            return f"cannot check {url}: nothing answered at {host} (connection refused or unreachable)"
        if isinstance(leaf, MCPError):
            return (
                f"cannot check {url}: it does not answer as an MCP endpoint ({leaf.error.message}); "
                "the URL should be the server's MCP path, e.g. https://<api>/mcp"
            )
    first = next(_leaves(failure))
    return f"cannot check {url}: {type(first).__name__}: {first}"
