"""Chess games in DynamoDB (moto, real boto3 calls): calls per move, item size, retention, and racing writers."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from dynamodb_probe import OWNER, TABLE, CallLog, client_for, item_size, long_game, moto_dynamodb
from widget_mcp.apps.chess.domain import GameOver
from widget_mcp.apps.chess.errors import MoveConflict
from widget_mcp.apps.chess.repository import GameRepository, RetentionPolicy
from widget_mcp.apps.chess.service import ChessService, EngineBudget, GameView, MoveRequest
from widget_mcp.settings import Settings
from widget_mcp.storage.documents import Document
from widget_mcp.storage.dynamodb import DynamoDbDocumentStore
from widget_mcp.wiring import build_core

DAY = 86_400
ITEM_LIMIT = 4 * 1024  # one strongly consistent read unit


@pytest.fixture(scope="module")
def moto_url() -> Iterator[str]:
    with moto_dynamodb(TABLE) as url:
        yield url


@pytest.fixture
def logged(moto_url: str) -> tuple[ChessService, CallLog, Any]:
    client = client_for(moto_url)
    log = CallLog(client)
    store = DynamoDbDocumentStore(client, TABLE, on_capacity=log.on_capacity)
    return ChessService(GameRepository(store), EngineBudget(max_nodes=2_000, max_seconds=None)), log, client


@pytest.mark.parametrize("opponent", ["human", "engine"])
def test_a_move_is_one_consistent_get_and_one_conditional_put(
    logged: tuple[ChessService, CallLog, Any], opponent: Any
) -> None:
    service, log, _ = logged
    game_id = service.new_game(OWNER, color="white", opponent=opponent, fen=None).game.game_id
    log.clear()

    service.move(OWNER, game_id, MoveRequest("e4"), expected_ply=0)

    assert [name for name, _ in log.calls] == ["GetItem", "PutItem"]
    get, put = (params for _, params in log.calls)
    assert get["ConsistentRead"] is True
    assert put["ConditionExpression"] == "#v = :expected"
    assert put["ExpressionAttributeValues"] == {":expected": {"N": "1"}}
    assert [op for op, units in log.capacity if units > 0] == ["GetItem", "PutItem"]


async def test_through_the_tool_a_move_also_counts_once_against_its_callers_rate_limit_before_the_read(
    moto_url: str, settings: Settings
) -> None:
    client = client_for(moto_url)
    log = CallLog(client)
    runtime = build_core(settings, store=DynamoDbDocumentStore(client, TABLE)).runtime
    caller = {"openai/subject": "counted"}
    started = await runtime.call("chess_new_game", {}, caller)
    log.clear()

    moved = await runtime.call("chess_move", {"gameId": started["structuredContent"]["gameId"], "move": "e4"}, caller)

    assert not moved["isError"]
    assert [name for name, _ in log.calls] == ["UpdateItem", "GetItem", "PutItem"]
    assert log.calls[0][1]["Key"]["pk"] == {"S": "LIMIT#openai:counted"}


def test_a_refused_move_writes_nothing(logged: tuple[ChessService, CallLog, Any]) -> None:
    service, log, _ = logged
    game_id = service.new_game(OWNER, color="white", opponent="human", fen=None).game.game_id
    log.clear()

    with pytest.raises(ValueError, match="not a legal move"):
        service.move(OWNER, game_id, MoveRequest("e5"), expected_ply=0)

    assert [name for name, _ in log.calls] == ["GetItem"]


def test_a_game_of_300_plies_with_analysis_fits_in_one_read_unit(logged: tuple[ChessService, CallLog, Any]) -> None:
    service, _, client = logged
    repository = GameRepository(DynamoDbDocumentStore(client, TABLE))
    game = long_game(300)  # white, the player, to move
    analysis = {"engine": "widget-mcp alpha-beta", "bestMove": "e2e4", "bestMoveSan": "e4", "scoreCp": -35}
    analysis |= {"mate": None, "depth": 4, "nodes": 19_999, "seconds": 0.481, "pv": ["e2e4"] * 8}
    repository.create(OWNER, game, analysis)
    move = sorted(m.uci() for m in game.board.legal_moves if not game.board.is_capture(m))[0]

    view = service.move(OWNER, game.game_id, MoveRequest(move), expected_ply=300)

    assert view.game.ply == 302  # the player's move and the engine's reply
    item = client.get_item(TableName=TABLE, Key={"pk": {"S": f"USER#{OWNER.user_key}"}, "sk": {"S": "GAME#long-game"}})[
        "Item"
    ]
    assert item_size(item) <= ITEM_LIMIT, item_size(item)


def test_unfinished_games_expire_after_the_idle_period_and_finished_ones_after_the_finished_period(
    moto_url: str,
) -> None:
    client = client_for(moto_url)
    now = [1_800_000_000.0]
    repository = GameRepository(DynamoDbDocumentStore(client, TABLE), RetentionPolicy(30, 90), clock=lambda: now[0])
    service = ChessService(repository)
    game_id = service.new_game(OWNER, color="white", opponent="human", fen=None).game.game_id

    def ttl() -> int:
        key = {"pk": {"S": f"USER#{OWNER.user_key}"}, "sk": {"S": f"GAME#{game_id}"}}
        return int(client.get_item(TableName=TABLE, Key=key)["Item"]["ttl"]["N"])

    assert ttl() == 1_800_000_000 + 90 * DAY
    now[0] += 5 * DAY
    for ply, san in enumerate(["f3", "e5", "g4"]):
        service.move(OWNER, game_id, MoveRequest(san), expected_ply=ply)
    assert ttl() == 1_800_000_000 + 5 * DAY + 90 * DAY
    service.move(OWNER, game_id, MoveRequest("Qh4#"), expected_ply=3)
    assert ttl() == 1_800_000_000 + 5 * DAY + 30 * DAY


class ReadTogether:
    """Wraps the real store so that two writers both read the game before either writes: a forced race."""

    def __init__(self, store: DynamoDbDocumentStore, parties: int) -> None:
        self._store = store
        self._barrier = threading.Barrier(parties, timeout=10)

    def get(self, owner: str, kind: str, doc_id: str) -> Document | None:
        doc = self._store.get(owner, kind, doc_id)
        self._barrier.wait()
        return doc

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def race(service: ChessService, game_id: str, moves: list[str]) -> list[GameView | Exception]:
    results: list[GameView | Exception] = [ValueError("not run")] * len(moves)

    def play(index: int) -> None:
        try:
            results[index] = service.move(OWNER, game_id, MoveRequest(moves[index]), expected_ply=0)
        except Exception as exc:
            results[index] = exc

    threads = [threading.Thread(target=play, args=(i,)) for i in range(len(moves))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return results


def test_of_two_writers_racing_at_one_ply_exactly_one_wins_and_the_other_gets_the_current_state(
    moto_url: str,
) -> None:
    store = DynamoDbDocumentStore(client_for(moto_url), TABLE)
    game_id = ChessService(GameRepository(store)).new_game(OWNER, color="white", opponent="human", fen=None)
    racing = ChessService(GameRepository(ReadTogether(store, 2)))  # type: ignore[arg-type]

    results = race(racing, game_id.game.game_id, ["e4", "d4"])

    wins = [r for r in results if isinstance(r, GameView)]
    conflicts = [r for r in results if isinstance(r, MoveConflict)]
    assert (len(wins), len(conflicts)) == (1, 1), results
    assert conflicts[0].current.move_history_uci == wins[0].game.move_history_uci


def test_two_writers_racing_with_the_same_move_both_get_its_result_and_it_is_played_once(moto_url: str) -> None:
    store = DynamoDbDocumentStore(client_for(moto_url), TABLE)
    created = ChessService(GameRepository(store)).new_game(OWNER, color="white", opponent="human", fen=None)
    racing = ChessService(GameRepository(ReadTogether(store, 2)))  # type: ignore[arg-type]

    results = race(racing, created.game.game_id, ["e4", "e2e4"])

    assert all(isinstance(r, GameView) for r in results), results
    assert [r.game.move_history_uci for r in results if isinstance(r, GameView)] == [["e2e4"], ["e2e4"]]
    stored = ChessService(GameRepository(store)).show(OWNER, created.game.game_id)
    assert stored.game.move_history_uci == ["e2e4"]


def test_eight_clients_making_fifty_attempts_each_lose_no_move_and_double_none(moto_url: str) -> None:
    store = DynamoDbDocumentStore(client_for(moto_url), TABLE)
    game_id = ChessService(GameRepository(store)).new_game(OWNER, color="white", opponent="human", fen=None)
    game_id_text = game_id.game.game_id
    accepted: dict[int, set[str]] = {}
    tally = {"conflicts": 0, "retries_matched": 0}
    lock = threading.Lock()

    def client(seed: int) -> None:
        rng = random.Random(seed)
        service = ChessService(GameRepository(DynamoDbDocumentStore(client_for(moto_url), TABLE)))
        for _ in range(50):
            seen = service.show(OWNER, game_id_text).game
            if seen.is_over:
                return
            ply = seen.ply
            uci = rng.choice(sorted(m.uci() for m in seen.board.legal_moves))
            try:
                view = service.move(OWNER, game_id_text, MoveRequest(uci), expected_ply=ply)
            except MoveConflict:
                with lock:
                    tally["conflicts"] += 1
                continue
            except GameOver:
                return
            played = view.game.move_history_uci[ply]
            with lock:
                accepted.setdefault(ply, set()).add(played)
            if rng.random() < 0.2:  # a client that did not see the answer sends the same request again
                again = service.move(OWNER, game_id_text, MoveRequest(uci), expected_ply=ply)
                assert again.game.move_history_uci[: ply + 1] == view.game.move_history_uci[: ply + 1]
                with lock:
                    tally["retries_matched"] += 1

    threads = [threading.Thread(target=client, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)

    final = ChessService(GameRepository(store)).show(OWNER, game_id_text).game.move_history_uci
    assert all(len(moves) == 1 for moves in accepted.values()), accepted
    assert final == [next(iter(accepted[ply])) for ply in range(len(final))]
    assert sorted(accepted) == list(range(len(final)))
    assert tally["conflicts"] > 0
