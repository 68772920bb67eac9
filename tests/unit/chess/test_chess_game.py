"""The game aggregate: starting positions, history, captured pieces and PGN export."""

from __future__ import annotations

import chess
import pytest
from widget_mcp.apps.chess.domain import Game, InvalidPosition

AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


def play_all(game: Game, moves: list[str]) -> Game:
    for move in moves:
        game.play(move)
    return game


def test_a_game_from_a_fen_with_black_to_move_counts_ply_from_its_own_start() -> None:
    game = Game("g", fen=AFTER_E4)
    assert (game.turn, game.ply, game.start_fen) == ("black", 0, AFTER_E4)
    game.play("e5")
    assert (game.turn, game.ply) == ("white", 1)
    game.play("Nf3")
    assert (game.turn, game.ply, game.move_history_san) == ("black", 2, ["e5", "Nf3"])


def test_the_standard_start_given_as_a_fen_is_stored_as_no_fen() -> None:
    assert Game("g", fen=chess.STARTING_FEN).start_fen is None
    assert Game("g").start_fen is None


@pytest.mark.parametrize(
    ("fen", "reason"),
    [
        ("hello", "malformed"),
        ("8/8/8/8/8/8/8/8 w - - 0 1", "white has no king"),
        ("4k3/8/8/8/8/8/4q3/4K3 b - - 0 1", "side not to move is in check"),
        ("rnbqkbn1/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "castling rights"),
        ("P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "first or last rank"),
    ],
)
def test_a_bad_fen_is_rejected_as_an_invalid_position_carrying_the_fen(fen: str, reason: str) -> None:
    with pytest.raises(InvalidPosition, match=reason) as caught:
        Game("g", fen=fen)
    assert (caught.value.fen, caught.value.code) == (fen, "invalid_position")


def test_unknown_opponent_or_colour_is_refused() -> None:
    with pytest.raises(ValueError, match="opponent"):
        Game("g", opponent="robot")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="colour"):
        Game("g", player_color="red")  # type: ignore[arg-type]


def test_against_the_engine_the_engine_plays_the_other_colour() -> None:
    game = Game("g", opponent="engine", player_color="black")
    assert (game.engine_color, game.is_engine_turn) == ("white", True)
    game.play("e4")
    assert not game.is_engine_turn
    assert Game("h").engine_color is None


def test_history_fen_and_last_move_follow_the_moves_played() -> None:
    game = play_all(Game("g"), ["e4", "c5", "Nf3"])
    assert game.move_history_san == ["e4", "c5", "Nf3"]
    assert game.move_history_uci == ["e2e4", "c7c5", "g1f3"]
    assert game.last_move is not None
    assert game.last_move.to_dict() == {"uci": "g1f3", "san": "Nf3", "from": "g1", "to": "f3"}
    assert game.fen == "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    assert [record.san for record in game.moves] == game.move_history_san


def test_the_board_handed_out_is_a_copy() -> None:
    game = Game("g")
    board = game.board
    board.push_san("e4")
    assert game.ply == 0
    assert game.fen == chess.STARTING_FEN


def test_captured_pieces_are_listed_under_the_side_that_took_them() -> None:
    game = play_all(Game("g"), ["e4", "d5", "exd5", "Qxd5", "Nc3", "Qxa2"])
    assert game.captured == {"white": ["p"], "black": ["p", "p"]}


def test_castling_captures_nothing_and_moves_king_and_rook() -> None:
    game = play_all(Game("g"), ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "O-O"])
    assert game.last_move is not None
    assert (game.last_move.uci, game.last_move.san) == ("e1g1", "O-O")
    assert game.board.piece_at(chess.F1) == chess.Piece(chess.ROOK, chess.WHITE)
    assert game.captured == {"white": [], "black": []}


def test_en_passant_counts_the_pawn_taken_from_beside_the_landing_square() -> None:
    game = play_all(Game("g"), ["e4", "a6", "e5", "d5", "exd6"])
    assert game.last_move is not None
    assert game.last_move.san == "exd6"
    assert game.captured == {"white": ["p"], "black": []}
    assert game.board.piece_at(chess.D5) is None


def test_a_capturing_promotion_counts_the_victim_and_a_captured_promoted_piece_counts_as_what_it_became() -> None:
    game = Game("g", fen="r6r/4k1P1/8/8/8/8/8/4K3 w - - 0 1")
    game.play("gxh8=Q")
    game.play("Rxh8")
    assert game.captured == {"white": ["r"], "black": ["q"]}


def test_the_captured_lists_handed_out_are_copies() -> None:
    game = play_all(Game("g"), ["e4", "d5", "exd5"])
    game.captured["white"].append("q")
    assert game.captured["white"] == ["p"]


def test_pgn_lists_the_moves_and_the_result() -> None:
    pgn = play_all(Game("g"), ["f3", "e5", "g4", "Qh4#"]).pgn()
    assert '[Result "0-1"]' in pgn
    assert "1. f3 e5 2. g4 Qh4# 0-1" in pgn
    assert "[SetUp" not in pgn


def test_pgn_of_a_game_in_progress_has_an_open_result() -> None:
    pgn = play_all(Game("g"), ["e4"]).pgn()
    assert '[Result "*"]' in pgn
    assert pgn.rstrip().endswith("1. e4 *")


def test_pgn_from_a_fen_start_carries_setup_and_fen_headers_and_starts_with_black() -> None:
    game = Game("g", fen=AFTER_E4)
    game.play("c5")
    pgn = game.pgn()
    assert '[SetUp "1"]' in pgn
    assert f'[FEN "{AFTER_E4}"]' in pgn
    assert "1... c5 *" in pgn


def test_pgn_of_a_resigned_game_records_the_resignation_and_the_winner() -> None:
    game = play_all(Game("g", opponent="engine", player_color="white"), ["e4"])
    game.resign("white")
    pgn = game.pgn()
    assert '[Result "0-1"]' in pgn
    assert '[White "?"]' in pgn
    assert '[Black "Engine"]' in pgn
    assert "{ White resigns. } 0-1" in pgn


def test_pgn_player_names_can_be_given() -> None:
    pgn = Game("g").pgn(white="Ada", black="Blaise")
    assert '[White "Ada"]' in pgn
    assert '[Black "Blaise"]' in pgn


def test_a_draw_is_exported_as_a_half_point_each() -> None:
    game = Game("g", fen="7k/4Q3/6K1/8/8/8/8/8 w - - 0 1")
    game.play("Qf7")
    assert '[Result "1/2-1/2"]' in game.pgn()


def test_a_game_at_an_earlier_ply_replays_only_the_moves_played_by_then_and_drops_a_resignation() -> None:
    game = Game("g1", opponent="engine", player_color="black", fen="4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
    for move in ("e4", "Kd7", "e5"):
        game.play(move)
    game.resign("black")

    earlier = game.at_ply(2)

    assert (earlier.ply, earlier.move_history_san, earlier.status) == (2, ["e4", "Kd7"], "active")
    assert (earlier.opponent, earlier.player_color, earlier.start_fen) == ("engine", "black", game.start_fen)
    with pytest.raises(ValueError, match="between 0 and 3"):
        game.at_ply(4)


def test_pgn_of_a_long_game_wraps_at_80_columns_and_reads_back_to_the_same_moves() -> None:
    import io
    import random

    import chess.pgn

    game, chooser = Game("g"), random.Random(7)
    while game.ply < 120 and not game.is_over:
        game.play(chooser.choice(game.legal_moves_uci))
    text = game.pgn(white="Alice", black="Bob")

    read = chess.pgn.read_game(io.StringIO(text))

    assert read is not None
    assert [move.uci() for move in read.mainline_moves()] == game.move_history_uci
    assert (read.headers["White"], read.headers["Result"]) == ("Alice", game.state.result)
    assert max(len(line) for line in text.splitlines()) <= 80
