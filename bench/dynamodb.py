"""Ours only: DynamoDB requests per chess move and the game item's size after 300 plies, on moto with real boto3
calls, through the tools as a caller makes them (so the per-caller rate limit's counter is in the count). The call
log, the item-size rule and the long game are the functional tests' own (tests/dynamodb_probe.py), so the benchmark
and the tests count alike."""

from __future__ import annotations

import asyncio
import logging
import os
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from moto.server import ThreadedMotoServer
from widget_mcp.local.aws import free_port
from widget_mcp.settings import Settings
from widget_mcp.storage.dynamodb import DynamoDbDocumentStore
from widget_mcp.storage.table import create_state_table
from widget_mcp.wiring import build_core

from tests.dynamodb_probe import TABLE, CallLog, client_for, item_size, long_game

CALLER = {"openai/subject": "bench-user"}
METRICS_OFF = "POWERTOOLS_METRICS_DISABLED"


@dataclass(frozen=True)
class GameOnDynamoDb:
    calls_per_move: float  # median over the moves
    call_mix: str  # e.g. "UpdateItem+GetItem+PutItem", the most common sequence
    item_bytes: int
    plies: int


def measure(plies: int = 300) -> GameOnDynamoDb:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # moto's server logs every request
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        client = client_for(f"http://127.0.0.1:{port}")
        create_state_table(client, TABLE)
        log = CallLog(client)
        # As deployed but for the rate limit, raised so that 300 moves in a few seconds are all played, and quiet.
        settings = Settings(rate_limit_calls=1_000_000, log_level="WARNING")
        with _metrics_off():
            runtime = build_core(settings, store=DynamoDbDocumentStore(client, TABLE)).runtime
        sequences = asyncio.run(_play(runtime, log, plies))
        (item,) = [i for i in client.scan(TableName=TABLE)["Items"] if i["sk"]["S"].startswith("GAME#")]
    finally:
        server.stop()
    counts = sorted(s.count("+") + 1 for s in sequences)
    return GameOnDynamoDb(counts[len(counts) // 2], Counter(sequences).most_common(1)[0][0], item_size(item), plies)


@contextmanager
def _metrics_off() -> Iterator[None]:
    """No EMF line per move on the bench's output; restored after, as the timed children inherit the environment."""
    before = os.environ.get(METRICS_OFF)
    os.environ[METRICS_OFF] = "true"
    try:
        yield
    finally:
        if before is None:
            del os.environ[METRICS_OFF]
        else:
            os.environ[METRICS_OFF] = before


async def _play(runtime: object, log: CallLog, plies: int) -> list[str]:
    from widget_mcp.toolkit.runtime import ToolRuntime

    assert isinstance(runtime, ToolRuntime)
    started = await runtime.call("chess_new_game", {"opponent": "human"}, CALLER)
    game_id = started["structuredContent"]["gameId"]
    sequences = []
    for ply, uci in enumerate(long_game(plies).move_history_uci):
        log.clear()
        moved = await runtime.call("chess_move", {"gameId": game_id, "move": uci, "expectedPly": ply}, CALLER)
        if moved.get("isError"):
            raise SystemExit(f"chess_move failed at ply {ply}: {moved['content']}")
        sequences.append("+".join(name for name, _ in log.calls))
    return sequences
