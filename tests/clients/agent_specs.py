"""The agent frameworks of the matrix (test_agent_frameworks.py): each drives our server through its own MCP layer
and tool wrapper or agent loop, with a scripted model in place of an LLM (python/agent_script.py), from an
environment of its own that `make clients` builds from a hashed lock (python/<key>.txt). Each driver reports the
version it loaded; the test fails if it differs from the one named here."""

from __future__ import annotations

from client_specs import ENVIRONMENTS, PYTHON, ClientSpec

AGENT = "agent"


def _agent(key: str, library: str, version: str, note: str, elicits: bool = False) -> ClientSpec:
    return ClientSpec(
        key,
        library,
        version,
        (AGENT,),
        (str(ENVIRONMENTS / key / "bin" / "python"), str(PYTHON / f"{key}_driver.py")),
        ENVIRONMENTS / key / ".synced",
        note,
        (AGENT,) if elicits else (),
    )


AGENTS: tuple[ClientSpec, ...] = (
    _agent("openai_agents", "openai-agents", "0.24.0", "Runner.run, a custom Model, MCPServerStreamableHttp"),
    _agent("langchain", "langchain-mcp-adapters", "0.3.2", "MultiServerMCPClient.get_tools, a tool call"),
    _agent("pydantic_ai", "pydantic-ai-slim", "2.68.0", "Agent.run, FunctionModel, MCPToolset", elicits=True),
    _agent("strands", "strands-agents", "1.62.0", "Agent.invoke_async, a Model streaming events, MCPClient"),
    _agent("google_adk", "google-adk", "2.13.0", "InMemoryRunner, a BaseLlm, McpToolset"),
)
AGENT_IDS = [spec.key for spec in AGENTS]

# What a framework's model is known not to read, by framework and error code: each entry is a finding (docs/identity.md,
# "Tested clients"), and the tests check it still holds, so a fix on either side fails them until it is removed.
UNREAD_ERRORS: dict[str, dict[str, str]] = {
    # Its MCP layer raises on a call with no arguments at all, and the runner's default error
    # function hands the model a generic sentence instead of ours.
    "openai_agents": {"invalid_arguments (none given)": "An error occurred while running the tool. Please try again."},
    # It hands the model the structuredContent alone when every content block is text: a conflict's is the
    # current game (ARCHITECTURE.md's error contract), without the sentence.
    "pydantic_ai": {"conflict": "the current game alone"},
}

# The frameworks whose model is still offered the app-only tools, and why: the tests check every other framework's
# model is offered none, and that these are refused (`app_only`) when their model calls one. None today: a
# 2025-11-25 session's listing leaves them out too (transport/session_listing.py).
OFFERS_APP_ONLY: dict[str, str] = {}
