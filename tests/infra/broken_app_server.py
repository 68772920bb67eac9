"""A deliberately broken widget server for the readiness check: every rule has a tool or template that breaks it."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from mcp.server.lowlevel.server import Server
from widget_mcp.app import create_app
from widget_mcp.transport.endpoint import McpEndpoint
from widget_mcp.transport.guards import HostAllowlist

GOOD_URI = "ui://widget/board-0123456789ab.html"
UNVERSIONED_URI = "ui://widget/board.html"
CDN = "https://cdn.example.com"


def _tool(name: str, **overrides: Any) -> dict[str, Any]:
    tool: dict[str, Any] = {
        "name": name,
        "description": f"{name} does a thing",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": True, "destructiveHint": False, "openWorldHint": False},
        "_meta": {
            "openai/toolInvocation/invoking": "Working",
            "openai/toolInvocation/invoked": "Done",
            "ui": {"resourceUri": GOOD_URI, "visibility": ["model"]},
            "openai/outputTemplate": GOOD_URI,
        },
    }
    tool.update(overrides)
    return tool


TOOLS = [
    _tool("no_hints", annotations={"readOnlyHint": True}),
    _tool("no_output_schema", outputSchema=None),
    _tool("chatty", _meta={**_tool("x")["_meta"], "openai/toolInvocation/invoking": "Thinking very hard " * 5}),
    _tool("split_templates", _meta={**_tool("x")["_meta"], "openai/outputTemplate": UNVERSIONED_URI}),
    _tool("private_but_model", _meta={**_tool("x")["_meta"], "openai/visibility": "private"}),
]
TOOLS = [{k: v for k, v in t.items() if v is not None} for t in TOOLS]

TEMPLATES = {
    GOOD_URI: {
        "uri": GOOD_URI,
        "mimeType": "text/html+skybridge",
        "text": '<script type="module" src="https://evil.example.net/board.js"></script>',
        "_meta": {
            "ui": {"csp": {"connectDomains": [CDN], "resourceDomains": ["https://*.example.com"], "frameDomains": []}},
        },
    },
    UNVERSIONED_URI: {
        "uri": UNVERSIONED_URI,
        "mimeType": "text/html;profile=mcp-app",
        "text": "<div></div>",
        "_meta": {
            "ui": {"csp": {"connectDomains": [CDN], "resourceDomains": [CDN]}},
            "openai/widgetCSP": {"connect_domains": [CDN], "resource_domains": []},
            "openai/widgetDescription": "A board",
        },
    },
}


def build_broken_app() -> FastAPI:
    async def list_tools(ctx: Any, params: Any) -> dict[str, Any]:
        return {"tools": TOOLS}

    async def list_resources(ctx: Any, params: Any) -> dict[str, Any]:
        return {"resources": [{"uri": GOOD_URI, "name": "board", "mimeType": "text/html+skybridge"}]}

    async def read_resource(ctx: Any, params: Any) -> dict[str, Any]:
        return {"contents": [TEMPLATES[str(params.uri)]]}

    server: Server[Any] = Server(
        "broken", on_list_tools=list_tools, on_list_resources=list_resources, on_read_resource=read_resource
    )
    endpoint = McpEndpoint(
        server, allowed_hosts=HostAllowlist(("127.0.0.1:*",)), max_body_bytes=1 << 20, max_json_depth=64
    )
    return create_app(endpoint, max_body_bytes=1 << 20, tool_count=len(TOOLS))
