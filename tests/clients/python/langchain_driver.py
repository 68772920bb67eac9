"""langchain-mcp-adapters (its own environment: tests/clients/python/langchain.txt): `MultiServerMCPClient.get_tools`
gives LangChain tools; a run invokes the scripted call (agent_script.py) as an agent's tool node does, with a
tool call, and keeps the `ToolMessage` the model would be handed, over the line protocol (driver_loop.py).
Usage: python langchain_driver.py <MCP URL>. Each call opens a session of its own, the adapter's default."""

from __future__ import annotations

import asyncio
import sys
from importlib.metadata import version
from typing import Any

from agent_script import Script
from driver_loop import serve_commands
from langchain_core.messages import ToolMessage
from langchain_mcp_adapters.client import MultiServerMCPClient


async def main(url: str) -> None:
    tools: dict[str, Any] = {}

    async def connect() -> dict[str, Any]:
        client = MultiServerMCPClient({"widget": {"transport": "streamable_http", "url": url}})
        tools.update({tool.name: tool for tool in await client.get_tools()})
        return {
            "library": "langchain-mcp-adapters",
            "version": version("langchain-mcp-adapters"),
            "mcp": version("mcp"),
        }

    async def run(tool: str, arguments: dict[str, Any], answer: dict[str, Any] | None = None) -> dict[str, Any]:
        script = Script(tool, arguments)
        script.next_turn(list(tools))
        call = {"type": "tool_call", "id": script.call_id, "name": tool, "args": arguments}
        message = await tools[tool].ainvoke(call)
        assert isinstance(message, ToolMessage), message
        script.seen = [message.content]
        script.next_turn(list(tools))
        return script.answer()

    async def close() -> dict[str, Any]:
        return {}

    await serve_commands(connect, run, close)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
