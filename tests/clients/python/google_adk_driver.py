"""google-adk (its own environment: tests/clients/python/google_adk.txt): an `McpToolset` in an `LlmAgent` run by
the `InMemoryRunner`, the agent's model a `BaseLlm` subclass playing the scripted model (agent_script.py), over
the line protocol (driver_loop.py). Usage: python google_adk_driver.py <MCP URL>. What the model is handed is the
function response ADK builds from the tool's result."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncGenerator
from contextlib import AsyncExitStack
from importlib.metadata import version
from typing import Any

from agent_script import FINAL_TEXT, Script
from driver_loop import serve_commands
from google.adk.agents import LlmAgent
from google.adk.models import BaseLlm, LlmRequest, LlmResponse
from google.adk.runners import InMemoryRunner
from google.adk.tools.mcp_tool import McpToolset, StreamableHTTPConnectionParams
from google.genai import types

SCRIPTS: list[Script] = []


class ScriptedLlm(BaseLlm):
    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        script = SCRIPTS[-1]
        if script.next_turn(list(llm_request.tools_dict)):
            call = types.FunctionCall(id=script.call_id, name=script.tool, args=script.arguments)
            yield LlmResponse(content=types.Content(role="model", parts=[types.Part(function_call=call)]))
            return
        script.seen = [
            part.function_response.response
            for part in (llm_request.contents[-1].parts or [])
            if part.function_response is not None
        ]
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=FINAL_TEXT)]))


async def main(url: str) -> None:
    stack = AsyncExitStack()
    runner: InMemoryRunner | None = None
    toolset = McpToolset(connection_params=StreamableHTTPConnectionParams(url=url, timeout=30))
    stack.push_async_callback(toolset.close)

    async def connect() -> dict[str, Any]:
        nonlocal runner
        agent = LlmAgent(name="scripted", model=ScriptedLlm(model="scripted"), tools=[toolset])
        runner = InMemoryRunner(agent=agent)
        return {"library": "google-adk", "version": version("google-adk"), "mcp": version("mcp")}

    async def run(tool: str, arguments: dict[str, Any], answer: dict[str, Any] | None = None) -> dict[str, Any]:
        assert runner is not None
        SCRIPTS.append(Script(tool, arguments))
        session = await runner.session_service.create_session(app_name=runner.app_name, user_id="player")
        message = types.Content(role="user", parts=[types.Part(text="Play.")])
        async for _event in runner.run_async(user_id="player", session_id=session.id, new_message=message):
            pass
        return SCRIPTS[-1].answer()

    async def close() -> dict[str, Any]:
        await stack.aclose()
        return {}

    await serve_commands(connect, run, close)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
