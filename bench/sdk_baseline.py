"""The SDK baseline: the official SDK wired the documented way (MCPServer + streamable_http_app, stateless JSON,
Mangum), with the one fix it needs to survive warm calls: the session manager is started once per
process on Mangum's event loop instead of by a per-invocation lifespan."""

from __future__ import annotations

import asyncio
from typing import Any

from mangum import Mangum
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

from bench.events import HOST, TEMPLATE_HTML, TEMPLATE_URI

TOOL = "echo"


def make_handler(chess: bool = False) -> Any:
    server = MCPServer("sdk-baseline")

    @server.tool(name=TOOL)
    def echo(message: str) -> str:
        return message

    @server.resource(TEMPLATE_URI, name="bench", mime_type="text/html")
    def template() -> str:
        return TEMPLATE_HTML

    if chess:
        from bench import naive_chess

        @server.tool(name="chess_new_game")
        def chess_new_game() -> dict[str, Any]:
            return naive_chess.new_game()

        @server.tool(name="chess_move")
        def chess_move(gameId: str, move: str) -> dict[str, Any]:  # noqa: N803 - the wire name, as ours
            return naive_chess.move(gameId, move)

    app = server.streamable_http_app(
        stateless_http=True,
        json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=[HOST]),
    )
    mangum = Mangum(app, lifespan="off")  # Mangum set up its event loop; run the manager on it, once.
    loop = asyncio.get_event_loop()
    started = asyncio.Event()

    async def run_manager() -> None:
        async with server.session_manager.run():
            started.set()
            await asyncio.Event().wait()

    manager = loop.create_task(run_manager())
    loop.run_until_complete(started.wait())
    mangum.manager_task = manager  # keep a reference: the task must outlive this function
    return mangum


def resource_uri() -> str:
    return TEMPLATE_URI


def seed_games(moves: list[str], count: int, tag: str) -> list[str]:
    from bench import naive_chess

    return naive_chess.seed_games(moves, count, tag)
