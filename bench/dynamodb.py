"""Ours only: DynamoDB requests per chess move and the game item's size after 300 plies, on moto with real boto3
calls. The call log, the item-size rule and the long game are the functional tests' own
(tests/functional/test_chess_on_dynamodb.py), so the benchmark and the tests count alike."""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass

from moto.server import ThreadedMotoServer
from widget_mcp.apps.chess.repository import GameRepository
from widget_mcp.apps.chess.service import ChessService, MoveRequest
from widget_mcp.local.aws import free_port
from widget_mcp.storage.dynamodb import DynamoDbDocumentStore
from widget_mcp.storage.table import create_state_table

from tests.dynamodb_probe import OWNER, TABLE, CallLog, client_for, item_size, long_game


@dataclass(frozen=True)
class GameOnDynamoDb:
    calls_per_move: float  # median over the moves
    call_mix: str  # e.g. "GetItem+PutItem", the most common sequence
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
        service = ChessService(GameRepository(DynamoDbDocumentStore(client, TABLE)))
        game_id = service.new_game(OWNER, color="white", opponent="human", fen=None).game.game_id
        sequences = []
        for ply, uci in enumerate(long_game(plies).move_history_uci):
            log.clear()
            service.move(OWNER, game_id, MoveRequest(uci), expected_ply=ply)
            sequences.append("+".join(name for name, _ in log.calls))
        (item,) = client.scan(TableName=TABLE)["Items"]
    finally:
        server.stop()
    counts = sorted(s.count("+") + 1 for s in sequences)
    return GameOnDynamoDb(counts[len(counts) // 2], Counter(sequences).most_common(1)[0][0], item_size(item), plies)
