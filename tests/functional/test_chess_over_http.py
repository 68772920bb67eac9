"""The chess tools through the official MCP client over real HTTP, with games in DynamoDB (moto on loopback)."""

from __future__ import annotations

from collections.abc import Iterator

import boto3
import pytest
from chess_tour import play_the_tour
from mcp import Client
from moto.server import ThreadedMotoServer
from servers import serve
from widget_mcp.local.aws import free_port
from widget_mcp.settings import Settings
from widget_mcp.storage.dynamodb import DynamoDbDocumentStore
from widget_mcp.storage.table import create_state_table
from widget_mcp.wiring import build_app, build_core


@pytest.fixture(scope="module")
def dynamodb() -> Iterator[object]:
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    client = boto3.client(
        "dynamodb",
        endpoint_url=f"http://127.0.0.1:{port}",
        region_name="eu-west-1",
        aws_access_key_id="t",
        aws_secret_access_key="t",
    )
    create_state_table(client, "http-state")
    yield client
    server.stop()


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_user_plays_lists_and_resigns_games_over_http(dynamodb: object, settings: Settings, mode: str) -> None:
    core = build_core(settings, concurrent=True, store=DynamoDbDocumentStore(dynamodb, "http-state"))  # type: ignore[arg-type]
    with serve(build_app(core)) as url:
        async with Client(f"{url}/mcp", mode=mode) as client:  # type: ignore[arg-type]
            await play_the_tour(client, subject=f"http-{mode}")
