"""The official Python SDK 2.x (`mcp.Client`, the project's own lock) over the line protocol (driver_loop.py).
Usage: python mcp2_driver.py <MCP URL>. `mode="legacy"` speaks the 2025-11-25 handshake, `mode="2026-07-28"` the
stateless era."""

from __future__ import annotations

import asyncio
import sys
from contextlib import AsyncExitStack
from importlib.metadata import version
from typing import Any

import mcp_types as types
from driver_loop import APPS_EXTENSION, APPS_SETTINGS, FormUser, serve_commands, wire
from mcp import Client
from mcp.client.extension import advertise
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

MODES = {"2025-11-25": "legacy", "2026-07-28": "2026-07-28"}


async def main(url: str) -> None:
    stack = AsyncExitStack()
    client: Any = None
    user = FormUser()

    async def connect(era: str, declares: tuple[str, ...] = ()) -> dict[str, Any]:
        nonlocal client
        http = await stack.enter_async_context(create_mcp_http_client())
        http.event_hooks["response"].append(user.seen)
        client = await stack.enter_async_context(
            Client(
                streamable_http_client(url, http_client=http),
                mode=MODES[era],
                elicitation_callback=user.elicitation_callback(types) if "elicitation" in declares else None,
                extensions=[advertise(APPS_EXTENSION, APPS_SETTINGS)] if "apps" in declares else None,
            )
        )
        return {"library": "mcp", "version": version("mcp"), "protocolVersion": client.protocol_version}

    async def list_tools() -> dict[str, Any]:
        return {"tools": [wire(tool) for tool in (await client.list_tools()).tools]}

    async def read_resource(uri: str) -> dict[str, Any]:
        return {"contents": [wire(c) for c in (await client.read_resource(uri)).contents]}

    # `answer`: what the user answers if the server asks during the call (FormUser).
    async def call_tool(
        name: str, arguments: dict[str, Any], answer: dict[str, Any] | None = None, meta: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        user.expect(answer)
        try:
            result = wire(await client.call_tool(name, arguments, meta=meta))
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
