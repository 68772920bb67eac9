"""fastmcp's client (`fastmcp.Client`, in its own environment: tests/clients/python/fastmcp.txt) over the line
protocol (driver_loop.py). Usage: python fastmcp_driver.py <MCP URL>. Its `call_tool` parses results against the
tool's outputSchema; with `raise_on_error=False` an error result comes back as a result, as a host shows it."""

from __future__ import annotations

import asyncio
import sys
from contextlib import AsyncExitStack
from importlib.metadata import version
from typing import Any

from driver_loop import serve_commands, wire
from fastmcp import Client

MODES = {"2025-11-25": "legacy", "2026-07-28": "2026-07-28"}


async def main(url: str) -> None:
    stack = AsyncExitStack()
    client: Any = None

    async def connect(era: str) -> dict[str, Any]:
        nonlocal client
        client = await stack.enter_async_context(Client(url, mode=MODES[era]))
        return {"library": "fastmcp", "version": version("fastmcp"), "protocolVersion": client.protocol_version}

    async def list_tools() -> dict[str, Any]:
        return {"tools": [wire(tool) for tool in await client.list_tools()]}

    async def read_resource(uri: str) -> dict[str, Any]:
        return {"contents": [wire(c) for c in await client.read_resource(uri)]}

    async def call_tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await client.call_tool(name, arguments, raise_on_error=False)
        return {
            "result": {
                "isError": result.is_error,
                "content": [wire(block) for block in result.content],
                "structuredContent": result.structured_content,
                "_meta": result.meta,
            }
        }

    async def close() -> dict[str, Any]:
        await stack.aclose()
        return {}

    await serve_commands(connect, list_tools, read_resource, call_tool, close)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
