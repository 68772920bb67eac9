"""strands-agents (its own environment: tests/clients/python/strands.txt): an `MCPClient` as an `Agent`'s tool
provider, the agent's model a scripted `Model` (agent_script.py) streaming Bedrock-shaped events as the model
providers do, over the line protocol (driver_loop.py). Usage: python strands_driver.py <MCP URL>."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from importlib.metadata import version
from typing import Any

from agent_script import FINAL_TEXT, Script
from driver_loop import serve_commands
from strands import Agent
from strands.models import Model
from strands.tools.mcp import MCPClient


class ScriptedModel(Model):
    def __init__(self) -> None:
        self.script: Script | None = None

    def update_config(self, **model_config: Any) -> None:
        pass

    def get_config(self) -> Any:
        return {}

    def structured_output(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("the scripted model calls tools only")

    async def stream(self, messages: Any, tool_specs: Any = None, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        script = self.script
        assert script is not None
        yield {"messageStart": {"role": "assistant"}}
        if script.next_turn([spec["name"] for spec in tool_specs or []]):
            start = {"toolUse": {"toolUseId": script.call_id, "name": script.tool}}
            yield {"contentBlockStart": {"start": start}}
            yield {"contentBlockDelta": {"delta": {"toolUse": {"input": script.arguments_json}}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "tool_use"}}
            return
        # What a model provider sends of a tool result: its status and content (structuredContent and metadata
        # stay in the agent).
        results = [block["toolResult"] for block in messages[-1]["content"] if "toolResult" in block]
        script.seen = [{"status": result["status"], "content": result["content"]} for result in results]
        yield {"contentBlockDelta": {"delta": {"text": FINAL_TEXT}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "end_turn"}}


async def main(url: str) -> None:
    model = ScriptedModel()
    client = MCPClient(url=url)
    agent: Agent | None = None

    async def connect() -> dict[str, Any]:
        nonlocal agent
        agent = Agent(model=model, tools=[client], callback_handler=None)
        return {"library": "strands-agents", "version": version("strands-agents"), "mcp": version("mcp")}

    async def run(tool: str, arguments: dict[str, Any], answer: dict[str, Any] | None = None) -> dict[str, Any]:
        assert agent is not None
        model.script = Script(tool, arguments)
        agent.messages.clear()
        await agent.invoke_async("Play.")
        return model.script.answer()

    async def close() -> dict[str, Any]:
        if agent is not None:
            agent.cleanup()
        return {}

    await serve_commands(connect, run, close)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
