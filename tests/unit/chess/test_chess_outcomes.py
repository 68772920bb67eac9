"""How games end: mate, stalemate, automatic and claimable draws, resignation, and what a finished game refuses."""

from __future__ import annotations

import pytest
from widget_mcp.apps.chess.domain import Game, GameOver

KNIGHT_SHUFFLE = ["Nf3", "Nf6", "Ng1", "Ng8"]  # returns to the start position every four plies


def play_all(game: Game, moves: list[str]) -> Game:
    for move in moves:
        game.play(move)
    return game


def test_fools_mate_ends_the_game_in_checkmate_for_black() -> None:
    game = play_all(Game("g"), ["f3", "e5", "g4", "Qh4#"])
    assert (game.status, game.winner, game.draw_reason) == ("checkmate", "black", None)
    assert game.check
    assert game.is_over
    assert game.legal_moves_uci == []


def test_a_new_game_is_active_with_white_to_move_and_twenty_legal_moves() -> None:
    game = Game("g")
    assert (game.status, game.winner, game.claimable_draw, game.turn, game.ply) == ("active", None, None, "white", 0)
    assert not game.check
    assert len(game.legal_moves_uci) == 20
    assert game.legal_moves_uci == sorted(game.legal_moves_uci)
    assert game.last_move is None


def test_stalemate_ends_the_game_without_a_winner() -> None:
    game = Game("g", fen="7k/4Q3/6K1/8/8/8/8/8 w - - 0 1")
    game.play("Qf7")
    assert (game.status, game.winner, game.draw_reason) == ("stalemate", None, None)
    assert not game.check


def test_taking_the_last_pawn_leaves_bare_kings_and_draws_by_insufficient_material() -> None:
    game = Game("g", fen="4k3/8/8/8/8/8/3p4/4K3 w - - 0 1")  # the pawn gives check and can be taken
    game.play("Kxd2")
    assert (game.status, game.winner, game.draw_reason) == ("draw", None, "insufficient_material")


def test_a_fivefold_repetition_draws_the_game_automatically() -> None:
    game = play_all(Game("g"), KNIGHT_SHUFFLE * 3)
    assert game.status == "active"
    play_all(game, KNIGHT_SHUFFLE)  # the start position now stands for the fifth time
    assert (game.status, game.draw_reason) == ("draw", "fivefold_repetition")
    with pytest.raises(GameOver, match="fivefold repetition"):
        game.play("Nf3")


def test_a_threefold_repetition_is_claimable_but_the_game_goes_on() -> None:
    game = play_all(Game("g"), KNIGHT_SHUFFLE)
    assert game.state.claimable_draw is None
    play_all(game, KNIGHT_SHUFFLE)
    assert (game.status, game.claimable_draw) == ("active", "threefold_repetition")
    game.play("e4")
    assert game.claimable_draw is None


def test_fifty_moves_without_capture_or_pawn_move_is_claimable_and_seventy_five_ends_the_game() -> None:
    game = Game("g", fen="4k3/8/8/8/8/8/8/R3K3 w - - 99 80")
    assert game.state.claimable_draw is None
    game.play("Ra2")
    assert (game.status, game.claimable_draw) == ("active", "fifty_moves")
    late = Game("h", fen="4k3/8/8/8/8/8/8/R3K3 w - - 149 100")
    late.play("Ra2")
    assert (late.status, late.draw_reason) == ("draw", "seventyfive_moves")


def test_resigning_hands_the_win_to_the_other_side_and_stops_play() -> None:
    game = play_all(Game("g"), ["e4"])
    game.resign("black")
    assert (game.status, game.winner, game.resigned_by) == ("resigned", "white", "black")
    assert game.legal_moves_uci == []
    with pytest.raises(GameOver) as caught:
        game.play("e5")
    assert (caught.value.status, caught.value.winner, caught.value.attempted) == ("resigned", "white", "e5")
    assert caught.value.code == "game_over"


def test_a_finished_game_cannot_be_resigned() -> None:
    game = play_all(Game("g"), ["f3", "e5", "g4", "Qh4#"])
    with pytest.raises(GameOver, match=r"checkmate, black won"):
        game.resign("white")
    assert game.status == "checkmate"


def test_moving_after_checkmate_raises_game_over_naming_the_attempted_move() -> None:
    game = play_all(Game("g"), ["f3", "e5", "g4", "Qh4#"])
    with pytest.raises(GameOver) as caught:
        game.play(from_square="a2", to_square="a3")
    assert caught.value.attempted == "a2a3"
    assert str(caught.value) == "The game is already over (checkmate, black won); a2a3 cannot be played."


def test_a_game_created_in_a_finished_position_is_over_from_the_start() -> None:
    game = Game("g", fen="rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    assert (game.status, game.winner, game.ply) == ("checkmate", "black", 0)
    with pytest.raises(GameOver):
        game.play("a3")


def test_resign_rejects_a_colour_it_does_not_know() -> None:
    with pytest.raises(ValueError, match="not a colour"):
        Game("g").resign("green")  # type: ignore[arg-type]
