"""Loading from the anchor: a stored game resumes at its last irreversible move, replaying only what follows,
and then behaves in every way like the same game replayed from its start."""

from __future__ import annotations

import json
import random
from typing import Any

import chess
import pytest
from widget_mcp.apps.chess.domain import Game, InvalidRecord, choose_move, decode, encode
from widget_mcp.apps.chess.views import diagram, numbered_moves

SEEDS = range(10)
PLIES = 250
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"  # odd seeds start here: black first
KNIGHT_SHUFFLE = ["Nf3", "Nc6", "Ng1", "Nb8"]  # back where it started every four plies


class Walk:
    """Random legal moves, leaning towards castling, en passant and promotions, with bouts of shuffling back and
    forth (up to `longest` plies: 16 make a fivefold repetition), so that a few hundred plies see all of these."""

    def __init__(self, seed: int, longest: int = 12) -> None:
        self.rng, self.longest, self.shuffling = random.Random(seed), longest, 0

    def pick(self, game: Game) -> tuple[str, set[str]]:
        """A legal move and what it exercises."""
        rng, legal, board = self.rng, game.legal_moves_uci, game.recent_board
        kinds = {uci: _kind(board, chess.Move.from_uci(uci)) for uci in legal}
        special = [uci for uci, kind in kinds.items() if kind]
        if special and rng.random() < 0.7:
            uci = rng.choice(special)
            return uci, {kinds[uci]}
        if not self.shuffling and rng.random() < 0.05:
            self.shuffling = rng.randint(4, self.longest)
        if self.shuffling and len(game.moves) >= 2:
            self.shuffling -= 1
            mine = game.moves[-2]
            if (back := mine.to_square + mine.from_square) in legal:
                return back, set()
        uci = rng.choice(legal)
        return uci, {kinds[uci]} - {""}


def _kind(board: chess.Board, move: chess.Move) -> str:
    if move.promotion:
        return "promotion"
    if board.is_en_passant(move):
        return "en_passant"
    return "castling" if board.is_castling(move) else ""


def rules(game: Game) -> dict[str, Any]:
    """Everything the rules decide about the position, read from the game and from python-chess itself."""
    board = game.recent_board
    return {
        "fen": game.fen,
        "legal": game.legal_moves_uci,
        "state": game.state,
        "check": game.check,
        "en_passant_square": board.ep_square,  # even when no capture is legal: the engine's keys include it
        "repetitions": [board.is_repetition(count) for count in range(2, 6)],
        "claims": (board.can_claim_threefold_repetition(), board.can_claim_fifty_moves()),
        "anchor": game.anchor,
    }


def history(game: Game) -> dict[str, Any]:
    return {"moves": game.moves, "captured": game.captured, "pgn": game.pgn(), "ply": game.ply}


def shown(game: Game) -> tuple[str, str, list[chess.Move]]:
    """The move list and diagram a host without widgets sees, and the whole move stack, as `board` hands out."""
    return numbered_moves(game), diagram(game), game.board.move_stack


def stored(game: Game) -> Game:
    return decode(json.loads(json.dumps(encode(game))))


def test_a_game_loaded_from_its_anchor_decides_every_rule_as_the_game_replayed_from_the_start() -> None:
    covered: set[str] = set()
    for seed in SEEDS:
        walk = Walk(seed, longest=(8, 12, 18)[seed % 3])
        game = Game(f"walk-{seed}", fen=AFTER_E4 if seed % 2 else None)
        resumed = None  # loaded once, early, then played in step with the original
        while game.ply < PLIES and not game.is_over:
            uci, exercised = walk.pick(game)
            game.play(uci)
            loaded = stored(game)  # loaded afresh at every ply
            if resumed is not None:
                resumed.play(uci)
            elif encode(game).get("anchor"):
                resumed = loaded
            expected = rules(game), history(game)
            for other in (loaded, resumed):
                if other is not None:
                    assert (rules(other), history(other)) == expected, (seed, game.ply)
            covered |= exercised | {game.claimable_draw or "", game.draw_reason or ""}
        assert resumed is not None
        assert shown(resumed) == shown(stored(game)) == shown(game)
    assert {"promotion", "en_passant", "castling", "threefold_repetition", "fivefold_repetition"} <= covered


def test_a_game_loaded_from_its_anchor_keeps_every_earlier_position_for_retries_and_the_full_board() -> None:
    walk = Walk(7)
    game = Game("g", opponent="engine", player_color="black")
    while game.ply < 120 and not game.is_over:
        game.play(walk.pick(game)[0])
    loaded = stored(game)
    assert loaded.anchor.ply > 0
    for ply in (0, 1, loaded.anchor.ply - 1, loaded.anchor.ply, loaded.ply - 1, loaded.ply):
        assert history(loaded.at_ply(ply)) == history(game.at_ply(ply))
        assert rules(loaded.at_ply(ply)) == rules(game.at_ply(ply))
    assert loaded.start_board == game.start_board
    assert shown(loaded) == shown(game)
    assert rules(loaded) == rules(game)


def test_loading_replays_only_the_moves_after_the_anchor(monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game("g")
    for move in ["e4", "e5", *KNIGHT_SHUFFLE * 3]:
        game.play(move)
    replayed: list[str] = []
    original = Game.replay

    def spy(self: Game, uci: str, san: str | None = None) -> Any:
        replayed.append(uci)
        return original(self, uci, san)

    monkeypatch.setattr(Game, "replay", spy)
    loaded = stored(game)
    assert encode(game)["anchor"]["ply"] == 2
    assert replayed == game.move_history_uci[2:]
    assert loaded.claimable_draw == game.claimable_draw == "threefold_repetition"


def test_the_anchor_follows_the_last_capture_pawn_move_or_lost_castling_right() -> None:
    game = Game("g")
    anchors = []
    for move in ["Nf3", "Nf6", "e4", "Ng8", "Ke2", "Nf6", "Ke1", "Nxe4", "Nc3", "Nf6"]:
        game.play(move)
        anchors.append(encode(game).get("anchor", {}).get("ply"))
    assert anchors == [None, None, 3, 3, 5, 5, 5, 8, 8, 8]
    assert encode(game)["anchor"]["captured"] == {"white": "", "black": "p"}


def test_fivefold_repetition_still_ends_a_game_when_reached_after_a_load() -> None:
    game = Game("g")
    for move in ["e4", "e5", *KNIGHT_SHUFFLE * 3]:
        game.play(move)
    loaded = stored(game)  # the position after 2. ... e5 stands for the fourth time
    for move in KNIGHT_SHUFFLE:
        assert loaded.status == "active"
        loaded.play(move)
    assert (loaded.status, loaded.draw_reason) == ("draw", "fivefold_repetition")
    assert stored(loaded).state == loaded.state


def test_the_75_move_rule_still_ends_a_game_when_reached_after_a_load() -> None:
    # The king's first step gives up castling: irreversible, but the halfmove clock keeps counting.
    game = Game("g", fen="4k3/8/8/8/8/8/8/R3K3 w Q - 140 90")
    for move in ["Ke2", "Kd8", "Ra2", "Kc8", "Ra1", "Kd8", "Ra2", "Kc8", "Ra1"]:
        game.play(move)
    record = encode(game)
    assert record["anchor"]["ply"] == 1
    loaded = stored(game)
    assert (loaded.status, loaded.claimable_draw) == ("active", "fifty_moves")
    loaded.play("Kd8")
    game.play("Kd8")
    assert (loaded.status, loaded.draw_reason) == ("draw", "seventyfive_moves")
    assert rules(loaded) == rules(game)
    assert stored(loaded).state == loaded.state


def test_the_engine_searches_a_loaded_game_as_the_game_replayed_from_the_start() -> None:
    walk = Walk(3)
    game = Game("g", opponent="engine", player_color="black")
    while game.ply < 80 and not game.is_over:
        game.play(walk.pick(game)[0])
        if game.ply % 20 == 0 and not game.is_over:
            assert choose_move(stored(game), max_nodes=1_500) == choose_move(game, max_nodes=1_500)


def test_records_written_before_the_anchor_existed_still_load() -> None:
    walk = Walk(11)
    game = Game("g")
    while game.ply < 150 and not game.is_over:
        game.play(walk.pick(game)[0])
    without_anchor = {key: value for key, value in encode(game).items() if key != "anchor"}
    version_1 = {key: value for key, value in without_anchor.items() if key != "san"} | {"v": 1}
    for record in (without_anchor, version_1):
        loaded = decode(record)
        assert rules(loaded) == rules(game)
        assert history(loaded) == history(game)
        assert shown(loaded) == shown(game)


def test_a_300_ply_record_with_its_anchor_stays_well_under_4_kb() -> None:
    for seed in range(100):
        rng, game = random.Random(seed), Game("g")
        while game.ply < 300 and not game.is_over:
            game.play(rng.choice(game.legal_moves_uci))
        if game.ply == 300:
            break
    record = encode(game)
    assert game.ply == 300
    assert "anchor" in record
    assert len(json.dumps(record, separators=(",", ":")).encode()) < 3_500


def anchored_record() -> dict[str, Any]:
    game = Game("g")
    for move in ["e4", "e5", "Nf3", "Nc6"]:
        game.play(move)
    return dict(encode(game))


@pytest.mark.parametrize(
    ("anchor", "reason"),
    [
        ("e4", "must be an object"),
        ({"ply": 0, "fen": chess.STARTING_FEN, "captured": {"white": "", "black": ""}}, "ply within the moves"),
        ({"ply": 5, "fen": chess.STARTING_FEN, "captured": {"white": "", "black": ""}}, "ply within the moves"),
        ({"ply": True, "fen": chess.STARTING_FEN, "captured": {"white": "", "black": ""}}, "ply within the moves"),
        ({"ply": 2, "fen": None, "captured": {"white": "", "black": ""}}, "ply within the moves"),
        ({"ply": 2, "fen": "hello", "captured": {"white": "", "black": ""}}, "hello"),
        ({"ply": 2, "fen": chess.STARTING_FEN, "captured": {"white": "", "black": ""}}, "does not follow"),
        ({"ply": 1, "fen": chess.STARTING_FEN, "captured": {"white": "", "black": ""}}, "does not follow"),
        ({"ply": 2, "fen": chess.STARTING_FEN, "captured": {"white": 3}}, "captured pieces"),
        ({"ply": 2, "fen": chess.STARTING_FEN, "captured": {"white": "k", "black": ""}}, "impossible"),
    ],
)
def test_a_record_with_a_malformed_anchor_raises_invalid_record(anchor: object, reason: str) -> None:
    record = anchored_record() | {"anchor": anchor}
    with pytest.raises(InvalidRecord, match=reason) as caught:
        decode(record)
    assert caught.value.record == record


def test_a_record_whose_moves_before_the_anchor_are_not_uci_raises_invalid_record() -> None:
    record = anchored_record()
    record["moves"] = record["moves"].replace("e2e4", "e4")
    with pytest.raises(InvalidRecord, match="before the anchor must be UCI"):
        decode(record)
