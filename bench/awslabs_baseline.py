"""The awslabs baseline: `awslabs.mcp-lambda-handler` (PyPI) as its README sets it up, with no session store
(so no DynamoDB): the handler class, tools registered by decorator, `handle_request` as the Lambda handler."""

from __future__ import annotations

import json
from typing import Any

from awslabs.mcp_lambda_handler import MCPLambdaHandler

from bench.events import TEMPLATE_HTML, TEMPLATE_URI

TOOL = "echo"


def make_handler(chess: bool = False) -> Any:
    server = MCPLambdaHandler("awslabs-baseline")

    @server.tool()
    def echo(message: str) -> str:
        """Returns the message."""
        return message

    @server.resource(uri=TEMPLATE_URI, name="bench", mime_type="text/html")
    def template() -> str:
        return TEMPLATE_HTML

    if chess:
        from bench import naive_chess

        @server.tool()
        def chess_new_game() -> str:
            """Starts a game."""
            return json.dumps(naive_chess.new_game())

        @server.tool()
        def chess_move(gameId: str, move: str) -> str:  # noqa: N803 - the wire name, as ours
            """Plays a move (SAN or UCI) in the game."""
            return json.dumps(naive_chess.move(gameId, move))

    return server.handle_request


def resource_uri() -> str:
    return TEMPLATE_URI


def seed_games(moves: list[str], count: int, tag: str) -> list[str]:
    from bench import naive_chess

    return naive_chess.seed_games(moves, count, tag)
