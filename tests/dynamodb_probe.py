"""DynamoDB probes shared by the storage tests and `make bench`: a moto server on loopback with the state
table, a client for it, a log of every request a client sends, DynamoDB's item-size rule (the product's own,
storage/items.py), and a long legal game to store."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import boto3
from widget_mcp.apps.chess.domain import Game
from widget_mcp.local.aws import SerializedMotoServer
from widget_mcp.storage.items import item_size
from widget_mcp.storage.table import create_state_table
from widget_mcp.toolkit.ownership import StateOwner

TABLE = "chess-state"
OWNER = StateOwner("openai:alice")
__all__ = ["OWNER", "TABLE", "CallLog", "client_for", "item_size", "long_game", "moto_dynamodb"]


@contextmanager
def moto_dynamodb(table: str) -> Iterator[str]:
    """A moto server on a free loopback port holding the state table `table`; yields its URL."""
    server = SerializedMotoServer()  # moto's own threaded server lets racing conditional writes both succeed
    server.start()
    url = server.url
    create_state_table(client_for(url), table)
    try:
        yield url
    finally:
        server.stop()


def client_for(url: str) -> Any:
    return boto3.client(
        "dynamodb", endpoint_url=url, region_name="eu-west-1", aws_access_key_id="t", aws_secret_access_key="t"
    )


class CallLog:
    """Every DynamoDB request the client sends, with its parameters, and the capacity each reported."""

    def __init__(self, client: Any) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.capacity: list[tuple[str, float]] = []
        client.meta.events.register("provide-client-params.dynamodb.*", self._record)

    def _record(self, params: dict[str, Any], model: Any, **_: Any) -> None:
        self.calls.append((model.name, params))

    def on_capacity(self, operation: str, units: float) -> None:
        self.capacity.append((operation, units))

    def clear(self) -> None:
        self.calls.clear()
        self.capacity.clear()


def long_game(plies: int) -> Game:
    """A legal game of exactly `plies` half-moves that has not ended (seeded random play, pawns pushed often)."""
    for seed in range(100):
        rng = random.Random(seed)
        game = Game("long-game", opponent="engine", player_color="white")
        while game.ply < plies and not game.is_over:
            board = game.board
            moves = sorted(board.legal_moves, key=lambda m: m.uci())
            quiet = [m for m in moves if not board.is_capture(m)] or moves
            game.play(rng.choice(quiet).uci())
        if game.ply == plies and not game.is_over:
            return game
    raise AssertionError("no seed gave a long enough game")
