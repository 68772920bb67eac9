"""The storage codec: a small dict that replays into the very same game, and refuses records that do not."""

from __future__ import annotations

import json
import random

import pytest
from widget_mcp.apps.chess.domain import Game, InvalidRecord, decode, encode

AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


def long_game(plies: int) -> Game:
    """A game of exactly `plies` half-moves from a seeded random walk; a walk that ends early is retried."""
    for seed in range(100):
        chooser = random.Random(seed)
        game = Game(f"walk-{seed}", opponent="engine", player_color="black")
        while game.ply < plies and not game.is_over:
            game.play(chooser.choice(game.legal_moves_uci))
        if game.ply == plies:
            return game
    raise AssertionError("no seed gave a long enough game")


def snapshot(game: Game) -> dict[str, object]:
    return {
        "id": game.game_id,
        "fen": game.fen,
        "ply": game.ply,
        "san": game.move_history_san,
        "status": game.status,
        "winner": game.winner,
        "draw_reason": game.draw_reason,
        "claimable_draw": game.claimable_draw,
        "captured": game.captured,
        "opponent": game.opponent,
        "player_color": game.player_color,
        "start_fen": game.start_fen,
        "last_move": game.last_move,
    }


def test_a_new_game_encodes_to_a_tiny_record() -> None:
    assert encode(Game("g1")) == {
        "v": 2,
        "id": "g1",
        "fen": None,
        "moves": "",
        "san": "",
        "opponent": "human",
        "color": "white",
        "resigned_by": None,
    }


def test_round_trip_preserves_position_history_status_and_captures() -> None:
    game = Game("g", opponent="engine", player_color="black")
    for move in ["e4", "d5", "exd5", "Qxd5", "Nc3", "Qa5"]:
        game.play(move)
    restored = decode(encode(game))
    assert snapshot(restored) == snapshot(game)


def test_round_trip_of_a_fen_start_keeps_the_start_and_the_ply_count() -> None:
    game = Game("g", fen=AFTER_E4)
    game.play("e5")
    record = encode(game)
    assert record["fen"] == AFTER_E4
    restored = decode(record)
    assert snapshot(restored) == snapshot(game)
    assert restored.ply == 1


def test_a_version_1_record_without_san_still_loads_and_works_out_the_notation() -> None:
    game = Game("g")
    for move in ["e4", "d5", "exd5"]:
        game.play(move)
    record = {key: value for key, value in encode(game).items() if key != "san"} | {"v": 1}

    assert snapshot(decode(record)) == snapshot(game)


def test_round_trip_keeps_a_resignation() -> None:
    game = Game("g")
    game.play("e4")
    game.resign("black")
    restored = decode(encode(game))
    assert (restored.status, restored.winner, restored.resigned_by) == ("resigned", "white", "black")


def test_round_trip_keeps_a_checkmate() -> None:
    game = Game("g")
    for move in ["f3", "e5", "g4", "Qh4#"]:
        game.play(move)
    assert snapshot(decode(encode(game))) == snapshot(game)


def test_a_300_ply_game_encodes_well_under_4_kb_of_json_and_replays_exactly() -> None:
    game = long_game(300)
    record = encode(game)
    size = len(json.dumps(record, separators=(",", ":")).encode())
    assert size < 3_500  # about 10 bytes a half-move
    assert len(record["moves"].split()) == 300
    restored = decode(json.loads(json.dumps(record)))
    assert snapshot(restored) == snapshot(game)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"v": 3}, "format version"),
        ({"moves": "e2e4", "san": ""}, "as many moves"),
        ({"san": None}, "as many moves"),
        ({"moves": None}, "must be strings"),
        ({"color": "green"}, "not a colour"),
        ({"opponent": 3}, "must be strings"),
        ({"fen": "hello"}, "not a playable position"),
        ({"v": 1, "moves": "e2e4 e2e4"}, "not a legal move"),
        ({"v": 1, "moves": "e2e4 banana"}, "cannot be read as a move"),
        ({"v": 1, "moves": "f2f3 e7e5 g2g4 d8h4 a2a3"}, "already over"),
        ({"moves": "e2e4 e2e4", "san": "e4 e4"}, "not a legal move"),
        ({"resigned_by": "nobody"}, "not a colour"),
    ],
)
def test_a_record_that_cannot_be_replayed_raises_invalid_record(change: dict[str, object], reason: str) -> None:
    record = {**encode(Game("g")), **change}
    with pytest.raises(InvalidRecord, match=reason) as caught:
        decode(record)
    assert caught.value.record == record
    assert caught.value.code == "invalid_record"
