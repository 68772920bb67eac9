"""The engine: finds mates, keeps its queen, repeats itself exactly, and stays inside its node budget."""

from __future__ import annotations

import random

import chess
import pytest
from widget_mcp.apps.chess.domain import EngineResult, Game, GameOver, choose_move, play_engine_reply
from widget_mcp.apps.chess.domain.evaluation import evaluate, material_and_squares, move_delta
from widget_mcp.apps.chess.domain.ordering import captures

BACK_RANK = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"  # Ra8 mates: the pawns box their own king in
LEGALS_MATE = "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 10"  # Nf6+ gxf6 Bxf7#
QUIET_MATE_IN_TWO = "kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1"  # Ra6! bxa6 b7#
MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8"


def follow(board: chess.Board, result: EngineResult) -> chess.Board:
    """The board after the principal variation, which must be legal move by move."""
    line = board.copy()
    for uci in result.principal_variation:
        move = chess.Move.from_uci(uci)
        assert move in line.legal_moves, f"{uci} is not legal in {line.fen()}"
        line.push(move)
    return line


def test_the_engine_finds_a_back_rank_mate_in_one() -> None:
    result = choose_move(chess.Board(BACK_RANK), max_nodes=5_000)
    assert (result.best_move_uci, result.best_move_san) == ("a1a8", "Ra8#")
    assert (result.mate, result.score_cp) == (1, None)
    assert result.principal_variation == ["a1a8"]


@pytest.mark.parametrize("fen", [LEGALS_MATE, QUIET_MATE_IN_TWO])
def test_the_engine_finds_a_forced_mate_in_two_and_its_line_ends_in_checkmate(fen: str) -> None:
    board = chess.Board(fen)
    result = choose_move(board, max_nodes=20_000)
    assert result.mate == 2
    assert follow(board, result).is_checkmate()


def test_the_side_about_to_be_mated_sees_a_negative_mate() -> None:
    result = choose_move(chess.Board("8/8/8/8/8/2k5/8/K1q5 w - - 0 1"), max_nodes=5_000)  # Ka2 Qb2#
    assert (result.best_move_uci, result.mate, result.score_cp) == ("a1a2", -1, None)


def test_the_engine_does_not_take_a_defended_pawn_with_its_queen() -> None:
    board = chess.Board("4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1")  # Qxd5?? cxd5
    result = choose_move(board, max_nodes=5_000)
    assert result.best_move_uci != "d1d5"
    board.push_uci(result.best_move_uci)
    queen = board.pieces(chess.QUEEN, chess.WHITE).pop()
    assert not board.is_attacked_by(chess.BLACK, queen)


def test_the_engine_moves_an_attacked_queen_out_of_a_pawns_reach() -> None:
    board = chess.Board("rnbqkbnr/pppp1ppp/8/4p3/3Q4/8/PPP1PPPP/RNB1KBNR w KQkq - 0 3")
    board.push_uci(choose_move(board, max_nodes=5_000).best_move_uci)
    queen = board.pieces(chess.QUEEN, chess.WHITE).pop()
    assert not board.pieces(chess.PAWN, chess.BLACK) & board.attackers(chess.BLACK, queen)


def test_the_score_is_from_the_side_to_move_point_of_view() -> None:
    white_up_a_queen = "4k3/pppp4/8/8/8/8/PPPP4/3QK3 {} - - 0 1"
    assert (choose_move(chess.Board(white_up_a_queen.format("w")), max_nodes=3_000).score_cp or 0) > 500
    assert (choose_move(chess.Board(white_up_a_queen.format("b")), max_nodes=3_000).score_cp or 0) < -500


def test_the_same_position_and_budget_always_give_the_same_answer() -> None:
    first = choose_move(chess.Board(MIDDLEGAME), max_nodes=4_000)
    second = choose_move(chess.Board(MIDDLEGAME), max_nodes=4_000)
    assert first == second
    assert first.principal_variation[0] == first.best_move_uci
    follow(chess.Board(MIDDLEGAME), first)


def test_a_game_and_its_board_get_the_same_answer() -> None:
    game = Game("g")
    for move in ["e4", "e5", "Nf3"]:
        game.play(move)
    assert choose_move(game, max_nodes=3_000) == choose_move(game.board, max_nodes=3_000)


@pytest.mark.parametrize("max_nodes", [1, 7, 60, 500, 3_000])
def test_the_node_count_never_exceeds_the_budget_and_a_legal_move_still_comes_back(max_nodes: int) -> None:
    # No slack: the search stops before entering the node that would exceed max_nodes.
    board = chess.Board(MIDDLEGAME)
    result = choose_move(board, max_nodes=max_nodes)
    assert result.nodes <= max_nodes
    assert chess.Move.from_uci(result.best_move_uci) in board.legal_moves


def test_a_large_budget_in_a_simple_position_stops_early_once_the_mate_is_proven() -> None:
    result = choose_move(chess.Board(BACK_RANK), max_nodes=1_000_000)
    assert result.nodes < 1_000


def test_a_time_budget_still_returns_a_legal_move() -> None:
    board = chess.Board(MIDDLEGAME)
    result = choose_move(board, max_nodes=10_000_000, max_seconds=0.05)
    assert chess.Move.from_uci(result.best_move_uci) in board.legal_moves


def test_choosing_a_move_leaves_the_callers_board_untouched() -> None:
    board = chess.Board(MIDDLEGAME)
    board.push_san("a3")
    before = (board.fen(), list(board.move_stack))
    choose_move(board, max_nodes=2_000)
    assert (board.fen(), list(board.move_stack)) == before


def test_a_finished_game_or_board_gets_no_engine_move() -> None:
    game = Game("g")
    for move in ["f3", "e5", "g4", "Qh4#"]:
        game.play(move)
    with pytest.raises(GameOver, match="checkmate"):
        choose_move(game, max_nodes=1_000)
    with pytest.raises(GameOver, match="stalemate"):
        choose_move(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), max_nodes=1_000)
    resigned = Game("r")
    resigned.resign("white")
    with pytest.raises(GameOver, match="resigned"):
        play_engine_reply(resigned, max_nodes=1_000)


@pytest.mark.parametrize(("max_nodes", "max_seconds"), [(0, None), (100, 0.0), (100, -1.0), (100, float("nan"))])
def test_budgets_must_be_positive(max_nodes: int, max_seconds: float | None) -> None:
    with pytest.raises(ValueError, match="must be"):
        choose_move(chess.Board(), max_nodes=max_nodes, max_seconds=max_seconds)


def test_the_engine_reply_is_played_on_the_game_and_reported() -> None:
    game = Game("g", opponent="engine", player_color="white", fen=BACK_RANK.replace(" w ", " b "))
    game.play("Kh8")
    record, result = play_engine_reply(game, max_nodes=5_000)
    assert record.uci == result.best_move_uci == "a1a8"
    assert (game.ply, game.status, game.winner) == (2, "checkmate", "white")


def test_the_evaluation_is_symmetric_between_the_colours() -> None:
    assert evaluate(chess.Board()) == 0
    board = chess.Board(MIDDLEGAME)
    assert evaluate(board) == evaluate(board.mirror())


def test_the_incremental_score_of_every_move_matches_a_full_recount() -> None:
    # The search updates the score move by move; a drift here would quietly skew every search.
    chooser = random.Random(7)
    positions = [chess.Board(), chess.Board(MIDDLEGAME), chess.Board("r3k2r/1P4P1/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1")]
    for board in positions:
        for _ in range(60):
            if board.is_game_over():
                break
            side = 1 if board.turn == chess.WHITE else -1
            before = material_and_squares(board) * side
            for move in board.legal_moves:
                board.push(move)
                assert material_and_squares(board) * side - before == move_delta(board_before(board), move)
                board.pop()
            board.push(chooser.choice(sorted(board.legal_moves, key=chess.Move.uci)))


def test_the_quiescence_move_list_is_every_capture_and_queen_promotion_and_nothing_else() -> None:
    # The quiescence search builds its own capture list from attack tables; python-chess is the referee.
    chooser = random.Random(11)
    walks = [chess.Board(), chess.Board("r3k2r/1P4P1/8/3pP3/8/8/p6p/R3K2R w KQkq d6 0 1")]
    for board in walks:
        for _ in range(80):
            if board.is_game_over() or board.is_check():
                break  # in check the search looks at every evasion instead
            expected = {
                move
                for move in board.legal_moves
                if (board.is_capture(move) and move.promotion in (None, chess.QUEEN)) or move.promotion == chess.QUEEN
            }
            listed = captures(board)
            assert len(listed) == len(set(listed))
            assert {move for move in listed if board.is_legal(move)} == expected
            board.push(chooser.choice(sorted(board.legal_moves, key=chess.Move.uci)))


def board_before(board: chess.Board) -> chess.Board:
    before = board.copy()
    before.pop()
    return before
