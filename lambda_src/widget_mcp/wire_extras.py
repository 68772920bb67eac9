"""Fields hosts rely on that the SDK's per-era wire models do not define, put back after its serializer.

The SDK shapes every spec result through the negotiated era's pydantic models, which ignore unknown fields
(`extra="ignore"`), so two things our handlers return never reach the wire:

- `capabilities.extensions` in the 2025-11-25 `initialize` result: that era's `ServerCapabilities` has no
  `extensions` (SEP-2133 arrived in 2026-07-28, where `server/discover` carries it), yet MCP Apps hosts look
  for `io.modelcontextprotocol/ui` there;
- a tool's top-level `securitySchemes` in `tools/list` (OpenAI's Apps SDK field; `_meta.securitySchemes` is
  its back-compat mirror), in both eras.

`WireExtras` is a `Server.middleware` entry (the SDK's hook around each request, after the result is
serialized): it adds those fields to the wire dict, and never overrides what the SDK kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext

# Top-level tool fields the SDK's models drop that clients read: per-tool auth (OpenAI Apps SDK), and whether a
# call may run as a task (`execution.taskSupport`, the tasks extension's).
EXTRA_TOOL_FIELDS = ("securitySchemes", "execution")


class WireExtras(ServerMiddleware[Any]):
    def __init__(self, tools: Iterable[Mapping[str, Any]], extensions: Mapping[str, Mapping[str, Any]]) -> None:
        """`tools`: the descriptors the `tools/list` handler returns; `extensions`: the server's extension map."""
        self._tool_fields = {tool["name"]: {k: tool[k] for k in EXTRA_TOOL_FIELDS if k in tool} for tool in tools}
        self._extensions = extensions

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)
        if not isinstance(result, dict):
            return result
        if ctx.method == "initialize" and self._extensions:
            return self._with_extensions(result)
        if ctx.method == "tools/list":
            return self._with_tool_fields(result)
        return result

    def _with_extensions(self, result: dict[str, Any]) -> dict[str, Any]:
        capabilities = result.get("capabilities")
        if not isinstance(capabilities, dict) or "extensions" in capabilities:
            return result
        extensions = {name: dict(settings) for name, settings in self._extensions.items()}
        return {**result, "capabilities": {**capabilities, "extensions": extensions}}

    def _with_tool_fields(self, result: dict[str, Any]) -> dict[str, Any]:
        tools = result.get("tools")
        if not isinstance(tools, list):
            return result
        return {**result, "tools": [self._tool(tool) for tool in tools]}

    def _tool(self, tool: Any) -> Any:
        if not isinstance(tool, dict):
            return tool
        extra = self._tool_fields.get(tool.get("name"), {})
        return {**tool, **{k: v for k, v in extra.items() if k not in tool}}
