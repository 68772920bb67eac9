"""The official Python SDK 1.x (`mcp.ClientSession` over `streamable_http_client`, in its own environment:
tests/clients/python/mcp1.txt) over the line protocol (driver_loop.py). Usage: python mcp1_driver.py <MCP URL>.
1.x speaks only the handshake, offering its latest revision."""

from __future__ import annotations

import asyncio
import sys
from contextlib import AsyncExitStack
from importlib.metadata import version
from typing import Any

from driver_loop import serve_commands, wire
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


async def main(url: str) -> None:
    stack = AsyncExitStack()
    session: Any = None

    async def connect(era: str) -> dict[str, Any]:
        nonlocal session
        read, write, _ = await stack.enter_async_context(streamable_http_client(url))
        session = await stack.enter_async_context(ClientSession(read, write))
        initialized = await session.initialize()
        return {"library": "mcp", "version": version("mcp"), "protocolVersion": initialized.protocolVersion}

    async def list_tools() -> dict[str, Any]:
        return {"tools": [wire(tool) for tool in (await session.list_tools()).tools]}

    async def read_resource(uri: str) -> dict[str, Any]:
        return {"contents": [wire(c) for c in (await session.read_resource(uri)).contents]}

    async def call_tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"result": wire(await session.call_tool(name, arguments))}

    async def close() -> dict[str, Any]:
        await stack.aclose()
        return {}

    await serve_commands(connect, list_tools, read_resource, call_tool, close)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
