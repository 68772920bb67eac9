"""The official Python SDK 1.x (`mcp.ClientSession` over `streamable_http_client`, in its own environment:
tests/clients/python/mcp1.txt) over the line protocol (driver_loop.py). Usage: python mcp1_driver.py <MCP URL>.
1.x speaks only the handshake, offering its latest revision, and cannot declare extensions (so never the MCP Apps
one)."""

from __future__ import annotations

import asyncio
import sys
from contextlib import AsyncExitStack
from importlib.metadata import version
from typing import Any

from driver_loop import FormUser, serve_commands, wire
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


async def main(url: str) -> None:
    stack = AsyncExitStack()
    session: Any = None
    user = FormUser()

    async def connect(era: str, declares: tuple[str, ...] = ()) -> dict[str, Any]:
        nonlocal session
        if "apps" in declares:
            raise ValueError("mcp 1.x cannot declare client extensions")
        http = await stack.enter_async_context(create_mcp_http_client())
        http.event_hooks["response"].append(user.seen)
        read, write, _ = await stack.enter_async_context(streamable_http_client(url, http_client=http))
        callback = user.elicitation_callback(types) if "elicitation" in declares else None
        session = await stack.enter_async_context(ClientSession(read, write, elicitation_callback=callback))
        initialized = await session.initialize()
        return {"library": "mcp", "version": version("mcp"), "protocolVersion": initialized.protocolVersion}

    async def list_tools() -> dict[str, Any]:
        return {"tools": [wire(tool) for tool in (await session.list_tools()).tools]}

    async def read_resource(uri: str) -> dict[str, Any]:
        return {"contents": [wire(c) for c in (await session.read_resource(uri)).contents]}

    # `answer`: what the user answers if the server asks during the call (FormUser).
    async def call_tool(
        name: str, arguments: dict[str, Any], answer: dict[str, Any] | None = None, meta: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        user.expect(answer)
        try:
            result = wire(await session.call_tool(name, arguments, meta=meta))
            return {"result": result, "asked": user.asked, "resumed": user.resumed}
        finally:
            user.settle()

    async def resumed_after_settling(within_ms: int) -> dict[str, Any]:
        return {"statuses": await user.resumed_after_settling(within_ms)}

    async def close() -> dict[str, Any]:
        await stack.aclose()
        return {}

    await serve_commands(connect, list_tools, read_resource, call_tool, resumed_after_settling, close)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
