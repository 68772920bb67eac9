"""The warm chess_move workload, run inside one server's child process (see bench/endpoint.py).

Each timed call plays one move in its own game, seeded beforehand to stand at the opening (ply 0), in the
middle game (ply 60) or, in this module's own run, deep in a long game (ply 200). The baselines keep UCI lists
in a dict and replay them all (bench/naive_chess.py), so their cost grows with the game; ours loads through its
repository on the in-memory store, replaying only the moves since the last irreversible one. The positions
alternate in batches; the median of the batch means is reported.

`python -m bench.chess [--runs N] [--calls N]` times just this workload at all three positions, ours against
the SDK and awslabs baselines, in fresh child processes taking turns, and prints medians and ratios.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from bench.events import LambdaContext, move_event, succeeded
from bench.timing import BatchTimer

MIDDLE_PLY = 60
DEEP_PLY = 200
DEFAULT_PLIES = {"opening": 0, "middle": MIDDLE_PLY}
ALL_PLIES = {**DEFAULT_PLIES, "deep": DEEP_PLY}
SERVERS = {"ours": "bench.ours", "sdk": "bench.sdk_baseline", "awslabs": "bench.awslabs_baseline"}


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


def time_moves(server: ModuleType, calls: int, plies: dict[str, int] = DEFAULT_PLIES) -> dict[str, dict[str, float]]:
    """Seconds per warm chess_move at each named position ({"wall", "cpu"}), for the server module `server`."""
    handler = server.make_handler(chess=True)
    positions = {name: quiet_game(ply) if ply else ([], "e2e4") for name, ply in plies.items()}
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


def _child(kind: str, calls: int) -> None:
    report = os.fdopen(os.dup(1), "w")  # handlers log to stdout: keep it for the report
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    report.write(json.dumps(time_moves(importlib.import_module(SERVERS[kind]), calls, ALL_PLIES)) + "\n")
    report.flush()


def _spawn(kind: str, calls: int) -> dict[str, dict[str, float]]:
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": f"{root / 'lambda_src'}{os.pathsep}{root}"}
    args = [sys.executable, "-m", "bench.chess", "--child", kind, "--calls", str(calls)]
    done = subprocess.run(args, cwd=root, env=env, stdout=subprocess.PIPE, check=True)
    result: dict[str, dict[str, float]] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description="Warm chess_move, ours against the SDK and awslabs baselines.")
    parser.add_argument("--child", choices=tuple(SERVERS))
    parser.add_argument("--runs", type=int, default=3, help="child processes per server")
    parser.add_argument("--calls", type=int, default=100, help="timed moves per position and child")
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.calls)
        return
    kinds = list(SERVERS)
    samples: dict[tuple[str, str, str], list[float]] = {}
    for run in range(args.runs):
        for kind in kinds[run % len(kinds) :] + kinds[: run % len(kinds)]:  # take turns against machine noise
            for name, clocks in _spawn(kind, args.calls).items():
                for clock, seconds in clocks.items():
                    samples.setdefault((kind, name, clock), []).append(seconds)
    ms = {key: statistics.median(values) * 1000 for key, values in samples.items()}
    print(f"warm chess_move: medians of {args.runs} children per server, {args.calls} moves per position")
    print("position         ours ms  SDK ms  ours/SDK (CPU)  awslabs ms  ours/awslabs (CPU)")
    for name, ply in ALL_PLIES.items():
        ours, sdk, aws = (ms[kind, name, "wall"] for kind in kinds)
        cpu_sdk, cpu_aws = (ms["ours", name, "cpu"] / ms[kind, name, "cpu"] for kind in kinds[1:])
        print(
            f"{f'{name} (ply {ply})':<16}{ours:>8.3f}{sdk:>8.3f}{ours / sdk:>9.2f}x ({cpu_sdk:.2f}x)"
            f"{aws:>12.3f}{ours / aws:>13.2f}x ({cpu_aws:.2f}x)"
        )


if __name__ == "__main__":
    main()
