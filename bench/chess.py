"""The warm chess_move workload, run inside one server's child process (see bench/endpoint.py).

Each timed call plays one move in its own game, seeded beforehand to stand at the opening (ply 0) or in the
middle game (ply 60): loading a game replays its moves, so the cost grows with the game. Ours loads through its
repository on the in-memory store; the baselines keep UCI lists in a dict and replay them naively
(bench/naive_chess.py). Both positions alternate in batches; the median of the batch means is reported.
"""

from __future__ import annotations

import random
from types import ModuleType

from bench.events import LambdaContext, move_event, succeeded
from bench.timing import BatchTimer

MIDDLE_PLY = 60


def quiet_game(plies: int) -> tuple[list[str], str]:
    """A legal game of `plies` half-moves that is still going (seeded random play), and a legal next move."""
    import chess

    for seed in range(100):
        rng, board = random.Random(seed), chess.Board()
        while board.ply() < plies and not board.is_game_over():
            moves = sorted(board.legal_moves, key=lambda m: m.uci())
            board.push(rng.choice([m for m in moves if not board.is_capture(m)] or moves))
        if board.ply() == plies and not board.is_game_over():
            return [m.uci() for m in board.move_stack], min(m.uci() for m in board.legal_moves)
    raise SystemExit("no seed gave a long enough game")


def time_moves(server: ModuleType, calls: int) -> dict[str, dict[str, float]]:
    """Seconds per warm chess_move at each position ({"wall", "cpu"}), for the server module `server`."""
    handler = server.make_handler(chess=True)
    prefix, reply = quiet_game(MIDDLE_PLY)
    positions = {"opening": ([], "e2e4"), "middle": (prefix, reply)}
    batch = max(5, calls // 5)
    timers = {name: BatchTimer() for name in positions}
    for round_ in range(-1, calls // batch):  # round -1 warms up; not counted
        for name, (moves, uci) in positions.items():
            events = [move_event(g, uci) for g in server.seed_games(moves, batch, f"{name}{round_ + 1}")]
            responses = []
            with timers[name].batch(batch, counted=round_ >= 0):
                for event in events:
                    responses.append(handler(event, LambdaContext()))
            if not all(succeeded(r) for r in responses):
                raise SystemExit(f"{server.__name__}: chess_move failed: {responses[0]}")
    return {name: timer.medians() for name, timer in timers.items()}
