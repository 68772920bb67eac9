"""The TypeScript agent frameworks of the matrix: each driver (node/agent_*.mjs) runs the framework's own MCP client,
tool wrapper and agent loop with a scripted model, and answers what that model was handed (agent_loop.mjs). The
versions are the locked ones (node/package-lock.json); `era` is the revision each negotiates on its own (all three
probe with server/discover, so 2026-07-28)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from client_specs import NODE, STATELESS, ClientSpec, _node


@dataclass(frozen=True)
class AgentSpec:
    client: ClientSpec
    # How the framework names a server's tool to the model (Mastra: `<server>_<tool>`).
    prefix: str = ""
    # Whether the framework checks the model's arguments against the input schema itself, so a call that breaks it
    # never reaches the server and the model reads the framework's refusal instead of ours.
    checks_arguments: bool = False
    # Whether its MCP client declares the MCP Apps extension whatever shows its results (Mastra's MCPClient always
    # does), so the server offers its model the app-only tools and shows forms as widgets.
    declares_apps: bool = False

    @property
    def key(self) -> str:
        return self.client.key


def _agent(key: str, library: str, version: str, driver: str, note: str, **kwargs: Any) -> AgentSpec:
    package = NODE / "node_modules" / library / "package.json"
    command = (_node(), str(NODE / driver))
    return AgentSpec(ClientSpec(key, library, version, (STATELESS,), command, package, note), **kwargs)


AGENTS: tuple[AgentSpec, ...] = (
    _agent("ai_sdk_2_0_99", "@ai-sdk/mcp", "2.0.99", "agent_ai_sdk.mjs", "the Vercel AI SDK (ai 7.0.173)"),
    _agent(
        "mastra_2_0_0",
        "@mastra/mcp",
        "2.0.0",
        "agent_mastra.mjs",
        "Mastra (@mastra/core 1.71.0)",
        prefix="widget_",
        checks_arguments=True,
        declares_apps=True,
    ),
    _agent("openai_agents_js_0_20_0", "@openai/agents", "0.20.0", "agent_openai.mjs", "OpenAI Agents JS"),
)
AGENT_IDS = [spec.key for spec in AGENTS]


def model_text(seen: Any) -> str:
    """What the model was handed, as text to search: every string in it (a text block, an error's text, the JSON a
    result's text carries), then the whole value as JSON (numbers and keys of a structured value)."""

    def strings(value: Any) -> list[str]:
        if isinstance(value, str):
            return [value]
        if isinstance(value, dict):
            return [s for item in value.values() for s in strings(item)]
        if isinstance(value, list):
            return [s for item in value for s in strings(item)]
        return []

    return "\n".join([*strings(seen), json.dumps(seen)])


def states(text: str, key: str, value: Any) -> bool:
    """Whether `text` carries `"key": value` as JSON writes it (compact or not)."""
    return re.search(rf'"{re.escape(key)}"\s*:\s*{re.escape(json.dumps(value))}(?![\w.])', text) is not None


def stated_string(text: str, key: str) -> str | None:
    """The string `text` gives as `"key": "..."`, if any."""
    found = re.search(rf'"{re.escape(key)}"\s*:\s*"([^"\\]+)"', text)
    return found.group(1) if found else None
