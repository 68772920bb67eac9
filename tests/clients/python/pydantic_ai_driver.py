"""pydantic-ai (pydantic-ai-slim[mcp], its own environment: tests/clients/python/pydantic_ai.txt): an `MCPToolset`
in an `Agent` whose model is a `FunctionModel` playing the scripted model (agent_script.py), over the line protocol
(driver_loop.py). Usage: python pydantic_ai_driver.py <MCP URL>. It elicits: a run's `answer` is what the user
answers a form the server asks for (FormUser), so a test can check the answer reaches the model."""

from __future__ import annotations

import asyncio
import sys
from contextlib import AsyncExitStack
from importlib.metadata import version
from typing import Any

import mcp.types as types
from agent_script import FINAL_TEXT, Script
from driver_loop import FormUser, serve_commands, wire
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel


async def main(url: str) -> None:
    stack = AsyncExitStack()
    script: Script | None = None
    user = FormUser()
    agent: Agent[None, str] | None = None

    def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert script is not None
        if script.next_turn([tool.name for tool in info.function_tools]):
            return ModelResponse(parts=[ToolCallPart(script.tool, script.arguments, script.call_id)])
        latest = messages[-1]
        assert isinstance(latest, ModelRequest)
        script.seen = [
            part.content if isinstance(part, ToolReturnPart) else part.model_response()
            for part in latest.parts
            if isinstance(part, ToolReturnPart | RetryPromptPart)
        ]
        return ModelResponse(parts=[TextPart(FINAL_TEXT)])

    # fastmcp's elicitation handler (pydantic-ai's MCP layer is fastmcp's client): the user's answer.
    async def elicit(message: str, response_type: Any, params: Any, context: Any) -> types.ElicitResult:
        return types.ElicitResult(**await user.elicit(wire(params)))

    async def connect() -> dict[str, Any]:
        nonlocal agent
        toolset = await stack.enter_async_context(MCPToolset(url, elicitation_handler=elicit))
        agent = Agent(FunctionModel(scripted), toolsets=[toolset])
        return {"library": "pydantic-ai-slim", "version": version("pydantic-ai-slim"), "mcp": version("mcp")}

    async def run(tool: str, arguments: dict[str, Any], answer: dict[str, Any] | None = None) -> dict[str, Any]:
        nonlocal script
        script = Script(tool, arguments)
        user.expect(answer)
        assert agent is not None
        await agent.run("Play.")
        return {**script.answer(), "asked": user.asked}

    async def close() -> dict[str, Any]:
        await stack.aclose()
        return {}

    await serve_commands(connect, run, close)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
