"""Timings through each server's Lambda handler, in child processes: cold start (fresh interpreter to the first
tools/call response), warm trivial tools/call, and warm chess_move (bench/chess.py).

Every figure comes from fresh child processes, the servers taking turns (the order rotating each round) so that
machine noise hits all alike; the parent reports medians over the children, as wall clock and as CPU time.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench.timing import BatchTimer

ROOT = Path(__file__).resolve().parent.parent
SERVERS = {"ours": "bench.ours", "sdk": "bench.sdk_baseline", "awslabs": "bench.awslabs_baseline"}
KINDS = tuple(SERVERS)


@dataclass(frozen=True)
class Effort:
    cold_runs: int = 9
    warm_runs: int = 5
    warm_calls: int = 2000
    chess_calls: int = 100


def _child(kind: str, mode: str, effort: Effort) -> None:
    # Keep our stdout for the report: handlers log to it.
    report = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    server = importlib.import_module(SERVERS[kind])
    if mode == "chess":
        from bench.chess import ALL_PLIES, time_moves

        report.write(json.dumps(time_moves(server, effort.chess_calls, ALL_PLIES)) + "\n")
        report.flush()
        return
    from bench.events import LambdaContext, http_v2_event, succeeded, tool_call

    handler = server.make_handler()
    event = http_v2_event(tool_call(server.TOOL, {"message": "hello"}))
    response = handler(event, LambdaContext())
    if not succeeded(response):
        raise SystemExit(f"{kind}: unexpected first response {response}")
    if mode == "cold":
        report.write("ready\n")
        report.flush()
        return
    for _ in range(200):
        handler(event, LambdaContext())
    timer = BatchTimer()
    batch = max(1, effort.warm_calls // 10)
    for _ in range(10):
        with timer.batch(batch):
            for _ in range(batch):
                handler(event, LambdaContext())
    report.write(json.dumps(timer.medians()) + "\n")
    report.flush()


def _spawn(kind: str, mode: str, effort: Effort) -> tuple[dict[str, float], str]:
    """Seconds from spawning to the child's first line ("wall") and the child's whole CPU time ("cpu"), and
    that line."""
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'lambda_src'}{os.pathsep}{ROOT}"}
    args = ["--child", kind, "--mode", mode, "--warm-calls", str(effort.warm_calls)]
    args += ["--chess-calls", str(effort.chess_calls)]
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "bench.endpoint", *args], cwd=ROOT, env=env, stdout=subprocess.PIPE)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode()
    elapsed = time.perf_counter() - started
    _, status, usage = os.wait4(proc.pid, 0)  # reaps the child: its exit status and CPU time
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0 or not line:
        raise SystemExit(f"{kind} {mode} run failed (exit {proc.returncode})")
    return {"wall": elapsed, "cpu": usage.ru_utime + usage.ru_stime}, line


def _rounds(runs: int) -> list[tuple[str, ...]]:
    return [KINDS[i % len(KINDS) :] + KINDS[: i % len(KINDS)] for i in range(runs)]


def measure(effort: Effort) -> dict[str, dict[str, float]]:
    """Medians in seconds, {metric: {kind: seconds}}, for the metrics cold, warm, chess_opening, chess_middle
    and chess_deep, each as wall clock and as CPU time (the name with "_cpu")."""
    samples: dict[str, dict[str, list[float]]] = {}

    def add(metric: str, kind: str, times: dict[str, float]) -> None:
        for clock, suffix in (("wall", ""), ("cpu", "_cpu")):
            samples.setdefault(metric + suffix, {k: [] for k in KINDS})[kind].append(times[clock])

    for kind in KINDS:  # first runs warm the OS file cache and .pyc files; not counted
        _spawn(kind, "cold", effort)
    for order in _rounds(effort.cold_runs):
        for kind in order:
            add("cold", kind, _spawn(kind, "cold", effort)[0])
    for order in _rounds(effort.warm_runs):
        for kind in order:
            add("warm", kind, json.loads(_spawn(kind, "warm", effort)[1]))
            chess = json.loads(_spawn(kind, "chess", effort)[1])
            add("chess_opening", kind, chess["opening"])
            add("chess_middle", kind, chess["middle"])
            add("chess_deep", kind, chess["deep"])
    return {metric: {k: statistics.median(v) for k, v in by_kind.items()} for metric, by_kind in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description="A child process of `python -m bench`.")
    parser.add_argument("--child", choices=KINDS, required=True)
    parser.add_argument("--mode", choices=("cold", "warm", "chess"), default="cold")
    parser.add_argument("--warm-calls", type=int, default=Effort.warm_calls)
    parser.add_argument("--chess-calls", type=int, default=Effort.chess_calls)
    args = parser.parse_args()
    _child(args.child, args.mode, Effort(warm_calls=args.warm_calls, chess_calls=args.chess_calls))


if __name__ == "__main__":
    main()
