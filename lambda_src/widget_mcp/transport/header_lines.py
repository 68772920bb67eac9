"""Request headers as the endpoint reads them, one value per lower-case name, remembering a routing header that
came more than once.

A gateway in front of the server may authorize a request on the first `Mcp-Method`, `Mcp-Name`,
`Mcp-Protocol-Version` or `Mcp-Param-*` while a mapping keeps the last: so a request that repeats one is refused
(400, JSON-RPC Header Mismatch), whatever its protocol version. Each adapter says what it saw: ASGI has the raw
header lines, API Gateway's REST API (v1) each header's values; its HTTP API (v2) joins a repeated header's values
with commas, so there a routing header that holds a comma counts as repeated (none of their values needs one but a
resource URI, which can spell it `%2C`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mcp_types import HEADER_MISMATCH

from widget_mcp.transport.replies import HttpReply, error_body

ROUTING_HEADERS = frozenset({"mcp-protocol-version", "mcp-method", "mcp-name"})
# A tool's arguments mirrored in headers (`x-mcp-header`), which gateways route and authorize on too. Repeated through
# API Gateway's HTTP API they arrive joined, and no longer match the body (Header Mismatch); a comma alone is a value.
PARAM_HEADER_PREFIX = "mcp-param-"


class HeaderLines(dict[str, str]):
    """Headers by lower-case name (the last value of a repeated one), and the first routing header repeated."""

    repeated: str | None = None

    def saw_repeated(self, name: str) -> None:
        if (name in ROUTING_HEADERS or name.startswith(PARAM_HEADER_PREFIX)) and self.repeated is None:
            self.repeated = name


def header_lines(lines: Iterable[tuple[str, str]]) -> HeaderLines:
    """The headers of raw `(name, value)` lines."""
    headers = HeaderLines()
    for name, value in lines:
        key = name.lower()
        if key in headers:
            headers.saw_repeated(key)
        headers[key] = value
    return headers


def joined_header_lines(headers: Mapping[str, str]) -> HeaderLines:
    """The headers of a mapping whose repeated headers were joined with commas (API Gateway's HTTP API)."""
    lines = header_lines(headers.items())
    for name in ROUTING_HEADERS:
        if "," in lines.get(name, ""):
            lines.saw_repeated(name)
    return lines


def repeated_routing_header(headers: Mapping[str, str], message: Any) -> HttpReply | None:
    """The refusal of a request (the decoded body `message`) that repeats a routing header, or None."""
    repeated = headers.repeated if isinstance(headers, HeaderLines) else None
    if repeated is None:
        return None
    rid = message.get("id") if isinstance(message, dict) else None
    rid = rid if isinstance(rid, (str, int)) and not isinstance(rid, bool) else None
    return HttpReply(400, error_body(rid, HEADER_MISMATCH, f"{repeated} header appears more than once"))
