"""openai-agents (its own environment: tests/clients/python/openai_agents.txt): `MCPServerStreamableHttp` and an
`Agent` run by `Runner.run` with a scripted `Model` (agent_script.py) in place of an LLM, over the line protocol
(driver_loop.py). Usage: python openai_agents_driver.py <MCP URL>. Defaults as a user leaves them: the model is
handed the result's text (use_structured_content off)."""

from __future__ import annotations

import asyncio
import sys
from contextlib import AsyncExitStack
from importlib.metadata import version
from typing import Any

from agent_script import FINAL_TEXT, Script
from agents import Agent, Model, ModelResponse, Runner, Usage, set_tracing_disabled
from agents.mcp import MCPServerStreamableHttp
from driver_loop import serve_commands
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText


class ScriptedModel(Model):
    def __init__(self) -> None:
        self.script: Script | None = None

    async def get_response(
        self, system_instructions: Any, input: Any, model_settings: Any, tools: Any, *rest: Any, **options: Any
    ) -> ModelResponse:
        script = self.script
        assert script is not None
        if script.next_turn([tool.name for tool in tools]):
            call = ResponseFunctionToolCall(
                type="function_call", call_id=script.call_id, name=script.tool, arguments=script.arguments_json
            )
            return ModelResponse(output=[call], usage=Usage(), response_id=None)
        script.seen = [
            item["output"] for item in input if isinstance(item, dict) and item.get("type") == "function_call_output"
        ]
        text = ResponseOutputText(type="output_text", text=FINAL_TEXT, annotations=[])
        message = ResponseOutputMessage(type="message", id="m", role="assistant", status="completed", content=[text])
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("the scripted model answers whole responses only")


async def main(url: str) -> None:
    set_tracing_disabled(True)
    stack = AsyncExitStack()
    model = ScriptedModel()
    agent: Agent[Any] | None = None

    async def connect() -> dict[str, Any]:
        nonlocal agent
        server = await stack.enter_async_context(
            MCPServerStreamableHttp({"url": url}, cache_tools_list=True, client_session_timeout_seconds=30)
        )
        agent = Agent(name="scripted", model=model, mcp_servers=[server])
        return {"library": "openai-agents", "version": version("openai-agents"), "mcp": version("mcp")}

    async def run(tool: str, arguments: dict[str, Any], answer: dict[str, Any] | None = None) -> dict[str, Any]:
        model.script = Script(tool, arguments)
        await Runner.run(agent, "Play.", max_turns=3)
        return model.script.answer()

    async def close() -> dict[str, Any]:
        await stack.aclose()
        return {}

    await serve_commands(connect, run, close)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
