"""Fetches what a host would see, with the official MCP client over the 2025-11-25 handshake."""

from __future__ import annotations

from typing import Any

from mcp import Client
from mcp.shared.exceptions import MCPError

from widget_mcp.readiness.rules import Snapshot


def _wire(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dumped


async def collect(url: str, *, read_timeout: float = 30.0) -> Snapshot:
    """tools/list and resources/list (all pages), then resources/read for every template a tool or listing names."""
    async with Client(url, mode="legacy", read_timeout_seconds=read_timeout) as client:
        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            page = await client.list_tools(cursor=cursor)
            tools += [_wire(t) for t in page.tools]
            if not (cursor := page.next_cursor):
                break
        resources: list[dict[str, Any]] = []
        while True:
            listing = await client.list_resources(cursor=cursor)
            resources += [_wire(r) for r in listing.resources]
            if not (cursor := listing.next_cursor):
                break
        snapshot = Snapshot(url=url, tools=tools, resources=resources)
        reads: dict[str, dict[str, Any] | str] = {}
        for uri in snapshot.template_uris:
            try:
                result = await client.read_resource(uri)
            except MCPError as exc:
                reads[uri] = str(exc)
                continue
            reads[uri] = _wire(result.contents[0]) if result.contents else "no contents"
    return Snapshot(url=url, tools=tools, resources=resources, reads=reads)
