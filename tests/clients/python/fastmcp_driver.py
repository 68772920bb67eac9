"""fastmcp's client (`fastmcp.Client`, in its own environment: tests/clients/python/fastmcp.txt) over the line
protocol (driver_loop.py). Usage: python fastmcp_driver.py <MCP URL>. Its `call_tool` parses results against the
tool's outputSchema; with `raise_on_error=False` an error result comes back as a result, as a host shows it."""

from __future__ import annotations

import asyncio
import sys
from contextlib import AsyncExitStack
from importlib.metadata import version
from typing import Any

import httpx2
import mcp_types as types
from driver_loop import APPS_EXTENSION, APPS_SETTINGS, FormUser, serve_commands, wire
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from mcp.client.extension import advertise

MODES = {"2025-11-25": "legacy", "2026-07-28": "2026-07-28"}


async def main(url: str) -> None:
    stack = AsyncExitStack()
    client: Any = None
    user = FormUser()

    # fastmcp's own factory's arguments (it adds some, such as follow_redirects), and the response hook.
    def http_client(headers: Any = None, timeout: Any = None, auth: Any = None, **options: Any) -> Any:
        timeout = timeout if timeout is not None else httpx2.Timeout(30.0, read=300.0)
        hooks = {"response": [user.seen]}
        return httpx2.AsyncClient(headers=headers, timeout=timeout, auth=auth, event_hooks=hooks, **options)

    # fastmcp takes the content as the answer, or an ElicitResult for another action; what it raises is sent as the
    # client's error.
    async def elicit(message: str, response_type: Any, params: Any, context: Any) -> types.ElicitResult:
        return types.ElicitResult(**await user.elicit(wire(params)))

    async def connect(era: str, declares: tuple[str, ...] = ()) -> dict[str, Any]:
        nonlocal client
        client = await stack.enter_async_context(
            Client(
                StreamableHttpTransport(url, httpx_client_factory=http_client),
                mode=MODES[era],
                elicitation_handler=elicit if "elicitation" in declares else None,
                extensions=[advertise(APPS_EXTENSION, APPS_SETTINGS)] if "apps" in declares else None,
            )
        )
        return {"library": "fastmcp", "version": version("fastmcp"), "protocolVersion": client.protocol_version}

    async def list_tools() -> dict[str, Any]:
        return {"tools": [wire(tool) for tool in await client.list_tools()]}

    async def read_resource(uri: str) -> dict[str, Any]:
        return {"contents": [wire(c) for c in await client.read_resource(uri)]}

    # `answer`: what the user answers if the server asks during the call (FormUser).
    async def call_tool(
        name: str, arguments: dict[str, Any], answer: dict[str, Any] | None = None, meta: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        user.expect(answer)
        try:
            result = await client.call_tool(name, arguments, raise_on_error=False, meta=meta)
            return {
                "result": {
                    "isError": result.is_error,
                    "content": [wire(block) for block in result.content],
                    "structuredContent": result.structured_content,
                    "_meta": result.meta,
                },
                "asked": user.asked,
                "resumed": user.resumed,
            }
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
