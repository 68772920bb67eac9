"""DynamoDB outages seen through the Lambda handler (API Gateway events, moto on loopback): the warm container's
own client retries with botocore's real backoff, the call answers a retryable error, nothing is written, and
the same container serves the next call."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from apigw_events import Handler
from lambda_transport import URL, lambda_http_client
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from storage_faults import SERVICE_UNAVAILABLE, THROTTLING, Fault, FaultInjector
from tool_results import error_of
from widget_mcp.storage.dynamodb import MAX_ATTEMPTS, DynamoDbDocumentStore

ME = {"openai/subject": "lambda-faults"}


@pytest.fixture
def faults(handler: Handler) -> Iterator[FaultInjector]:
    from widget_mcp.handler import core

    assert isinstance(core.store, DynamoDbDocumentStore)
    injector = FaultInjector(core.store.client)
    yield injector
    injector.remove()


def state(result: Any) -> tuple[int, list[str]]:
    return result.structured_content["ply"], result.meta["moveHistory"]


@pytest.mark.parametrize("fault", [SERVICE_UNAVAILABLE, THROTTLING], ids=lambda f: f.name)
async def test_a_move_during_a_dynamodb_outage_answers_retryable_writes_nothing_and_the_container_serves_on(
    handler: Handler, faults: FaultInjector, fault: Fault
) -> None:
    async with lambda_http_client(handler) as http:
        transport = streamable_http_client(URL, http_client=http)
        async with Client(transport, mode="2026-07-28") as client:  # type: ignore[arg-type]
            started = await client.call_tool("chess_new_game", {}, meta=ME)
            assert started.structured_content is not None
            game_id = started.structured_content["gameId"]
            move = {"gameId": game_id, "move": "e4", "expectedPly": 0}
            faults.clear()
            faults.plan("PutItem", fault.action)

            began = time.monotonic()
            failed = await client.call_tool("chess_move", move, meta=ME)
            took = time.monotonic() - began

            assert failed.structured_content is None
            assert error_of(failed)["code"] == "service_unavailable"
            assert error_of(failed)["retryable"] is True
            assert faults.attempts == {
                "UpdateItem": 1,
                "GetItem": 1,
                "PutItem": MAX_ATTEMPTS,
            }  # UpdateItem: the rate counter
            # botocore's jittered backoff, really slept: at most 1 s + 2 s when throttled, 25 ms + 50 ms otherwise.
            assert took < (3.0 if fault.throttling else 0.075) + 2.0
            faults.clear()
            assert state(await client.call_tool("chess_show_game", {"gameId": game_id}, meta=ME)) == (0, [])
            assert state(await client.call_tool("chess_move", move, meta=ME)) == (1, ["e4"])
