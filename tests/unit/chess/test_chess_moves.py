"""Reading moves: SAN, UCI, from/to squares, promotions, and the two ways a move can be wrong."""

from __future__ import annotations

import pytest
from widget_mcp.apps.chess.domain import ChessError, Game, IllegalMove, InvalidMove, MoveRecord

PROMOTION_FEN = "r6r/4k1P1/8/8/8/8/8/4K3 w - - 0 1"  # white pawn g7 can push to g8 or take the rook on h8


def test_san_move_is_played_and_recorded_in_both_notations() -> None:
    game = Game("g")
    record = game.play("Nf3")
    assert record == MoveRecord(uci="g1f3", san="Nf3", from_square="g1", to_square="f3")
    assert record.to_dict() == {"uci": "g1f3", "san": "Nf3", "from": "g1", "to": "f3"}


def test_uci_move_is_played_and_gets_its_san() -> None:
    game = Game("g")
    assert game.play("e2e4").san == "e4"
    assert game.play("d7d5").san == "d5"
    assert game.play("e4d5").san == "exd5"


def test_from_and_to_squares_make_a_move_and_win_over_move_text() -> None:
    game = Game("g")
    record = game.play("a2a3", from_square="g1", to_square="f3")
    assert record.uci == "g1f3"


def test_surrounding_whitespace_and_check_suffixes_are_accepted() -> None:
    game = Game("g")
    for move in (" f3 ", "e5", "g4"):
        game.play(move)
    assert game.play("Qh4#").san == "Qh4#"


def test_castling_reads_in_san_uci_and_from_to_forms() -> None:
    ready = "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq - 0 1"
    assert Game("a", fen=ready).play("O-O").uci == "e1g1"
    assert Game("b", fen=ready).play("0-0-0").uci == "e1c1"
    assert Game("c", fen=ready).play("e1g1").san == "O-O"
    assert Game("d", fen=ready).play(from_square="e1", to_square="c1").san == "O-O-O"


def test_promotion_reads_in_san_uci_and_from_to_with_a_piece() -> None:
    assert Game("a", fen=PROMOTION_FEN).play("g8=N").uci == "g7g8n"
    assert Game("b", fen=PROMOTION_FEN).play("g7h8q").san == "gxh8=Q"
    assert Game("c", fen=PROMOTION_FEN).play(from_square="g7", to_square="g8", promotion="R").san == "g8=R"


@pytest.mark.parametrize(
    "arguments",
    [
        {"move": "g7g8"},
        {"move": "g8"},
        {"move": "gxh8+"},
        {"from_square": "g7", "to_square": "h8"},
    ],
)
def test_a_pawn_reaching_the_last_rank_without_a_promotion_piece_is_an_invalid_move(
    arguments: dict[str, str],
) -> None:
    game = Game("g", fen=PROMOTION_FEN)
    with pytest.raises(InvalidMove, match="needs a promotion piece") as caught:
        game.play(**arguments)
    assert caught.value.code == "invalid_move"
    assert game.ply == 0


@pytest.mark.parametrize(
    ("arguments", "shown"),
    [
        ({"move": "zz"}, "zz"),
        ({"move": "Nf9"}, "Nf9"),
        ({"move": ""}, ""),
        ({"move": "--"}, "--"),
        ({"move": "0000"}, "0000"),
        ({"from_square": "e2", "to_square": "e9"}, "e2e9"),
        ({"from_square": "e2"}, "e2?"),
        ({"from_square": "e7", "to_square": "e8", "promotion": "k"}, "e7e8k"),
        ({"move": "e7e8k"}, "e7e8k"),
        ({"move": "e2e4", "promotion": "q"}, "e2e4"),
    ],
)
def test_unreadable_input_raises_invalid_move_carrying_the_input(arguments: dict[str, str], shown: str) -> None:
    with pytest.raises(InvalidMove) as caught:
        Game("g").play(**arguments)
    assert caught.value.move == shown
    assert str(caught.value).endswith(".")


def test_giving_no_move_at_all_is_an_invalid_move() -> None:
    with pytest.raises(InvalidMove, match="give a move"):
        Game("g").play()


def test_an_ambiguous_san_move_is_invalid_and_names_the_fix() -> None:
    game = Game("g", fen="4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1")  # both knights reach d2
    with pytest.raises(InvalidMove, match="origin file or rank"):
        game.play("Nd2")
    assert game.play("Nbd2").uci == "b1d2"


@pytest.mark.parametrize("move", ["Nf6", "e2e5", "Ke2", "O-O"])
def test_well_formed_but_forbidden_moves_raise_illegal_move_with_the_move_and_colour(move: str) -> None:
    with pytest.raises(IllegalMove) as caught:
        Game("g").play(move)
    error = caught.value
    assert (error.move, error.color, error.code) == (move, "white", "illegal_move")
    assert str(error) == f"{move} is not a legal move for white in this position."
    assert isinstance(error, ChessError)
    assert isinstance(error, ValueError)


def test_illegal_from_to_move_names_the_squares() -> None:
    with pytest.raises(IllegalMove, match=r"^e2e5 is not a legal move for white"):
        Game("g").play(from_square="e2", to_square="e5")


def test_a_move_that_leaves_the_king_in_check_is_illegal_for_the_side_to_move() -> None:
    pinned = "4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1"  # the knight on e2 shields the king from the rook
    with pytest.raises(IllegalMove, match="for white"):
        Game("g", fen=pinned).play("Nc3")


def test_a_rejected_move_leaves_the_game_unchanged() -> None:
    game = Game("g")
    game.play("e4")
    fen = game.fen
    with pytest.raises(ChessError):
        game.play("e4")
    assert (game.fen, game.ply, game.move_history_san) == (fen, 1, ["e4"])
