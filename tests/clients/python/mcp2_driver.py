"""The official Python SDK 2.x (`mcp.Client`, the project's own lock) over the line protocol (driver_loop.py).
Usage: python mcp2_driver.py <MCP URL>. `mode="legacy"` speaks the 2025-11-25 handshake, `mode="2026-07-28"` the
stateless era."""

from __future__ import annotations

import asyncio
import sys
from contextlib import AsyncExitStack
from importlib.metadata import version
from typing import Any

from driver_loop import serve_commands, wire
from mcp import Client

MODES = {"2025-11-25": "legacy", "2026-07-28": "2026-07-28"}


async def main(url: str) -> None:
    stack = AsyncExitStack()
    client: Any = None

    async def connect(era: str) -> dict[str, Any]:
        nonlocal client
        client = await stack.enter_async_context(Client(url, mode=MODES[era]))
        return {"library": "mcp", "version": version("mcp"), "protocolVersion": client.protocol_version}

    async def list_tools() -> dict[str, Any]:
        return {"tools": [wire(tool) for tool in (await client.list_tools()).tools]}

    async def read_resource(uri: str) -> dict[str, Any]:
        return {"contents": [wire(c) for c in (await client.read_resource(uri)).contents]}

    async def call_tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"result": wire(await client.call_tool(name, arguments))}

    async def close() -> dict[str, Any]:
        await stack.aclose()
        return {}

    await serve_commands(connect, list_tools, read_resource, call_tool, close)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
