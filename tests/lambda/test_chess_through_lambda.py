"""The chess tools through the official MCP client, delivered to the Lambda handler as API Gateway events,
with games in DynamoDB (a moto server on loopback)."""

from __future__ import annotations

import pytest
from apigw_events import Handler
from chess_tour import play_the_tour
from lambda_transport import URL, lambda_http_client
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_user_plays_lists_and_resigns_games_through_lambda_events(handler: Handler, mode: str) -> None:
    async with lambda_http_client(handler) as http:
        transport = streamable_http_client(URL, http_client=http)
        async with Client(transport, mode=mode) as client:  # type: ignore[arg-type]
            await play_the_tour(client, subject=f"lambda-{mode}")
