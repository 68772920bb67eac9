"""The chess tools through the official MCP client over real HTTP, with games in DynamoDB (moto on loopback)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from chess_tour import play_the_tour
from dynamodb_probe import client_for, moto_dynamodb
from mcp import Client
from servers import serve
from widget_mcp.settings import Settings
from widget_mcp.storage.dynamodb import DynamoDbDocumentStore
from widget_mcp.wiring import build_app, build_core


@pytest.fixture(scope="module")
def dynamodb() -> Iterator[object]:
    with moto_dynamodb("http-state") as url:
        yield client_for(url)


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_user_plays_lists_and_resigns_games_over_http(dynamodb: object, settings: Settings, mode: str) -> None:
    core = build_core(settings, concurrent=True, store=DynamoDbDocumentStore(dynamodb, "http-state"))  # type: ignore[arg-type]
    with serve(build_app(core)) as url:
        async with Client(f"{url}/mcp", mode=mode) as client:  # type: ignore[arg-type]
            await play_the_tour(client, subject=f"http-{mode}")
