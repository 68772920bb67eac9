"""Timings through each server's Lambda handler, in child processes: cold starts (a fresh interpreter to the first
tools/call, to an answered initialize + tools/list, and to the first chess_new_game), warm requests (a trivial
tools/call, tools/list and resources/read, interleaved), and warm chess_move (bench/chess.py).

Every figure comes from fresh child processes, the servers taking turns (the order rotating each round) so that
machine noise hits all alike; the parent reports medians over the children, as wall clock and as CPU time. The
children compile what they import into a per-run bytecode cache (PYTHONPYCACHEPREFIX), filled by one unrecorded
run of each kind per server, so every server starts from bytecode, as a deployed function with `.pyc` does.
"""

from __future__ import annotations

import argparse
import atexit
import functools
import importlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


COLD_MODES = ("cold", "cold_list", "cold_chess")
WARM_REQUESTS = ("call", "list", "read")  # reported as the metrics warm, warm_list, warm_read


def _cold(kind: str, mode: str, server: Any) -> None:
    """The requests a cold start is timed to: each must succeed."""
    from bench.events import LambdaContext, http_v2_event, initialize, new_game_event, rpc, succeeded, tool_call

    if mode == "cold_list":
        handler = server.make_handler()
        events = [http_v2_event(initialize()), http_v2_event(rpc("tools/list"))]
    elif mode == "cold_chess":
        handler = server.make_handler(chess=True)
        events = [new_game_event()]
    else:
        handler = server.make_handler()
        events = [http_v2_event(tool_call(server.TOOL, {"message": "hello"}))]
    for event in events:
        response = handler(event, LambdaContext())
        if not succeeded(response):
            raise SystemExit(f"{kind} {mode}: unexpected response {response}")


def _warm(kind: str, server: Any, effort: Effort) -> dict[str, dict[str, float]]:
    """Seconds per warm request of each kind ({"wall", "cpu"}), in batches taking turns."""
    from bench.events import LambdaContext, succeeded, warm_events

    handler = server.make_handler()
    events = warm_events(server)
    for name, event in events.items():
        response = handler(event, LambdaContext())
        if not succeeded(response):
            raise SystemExit(f"{kind} warm {name}: unexpected response {response}")
        for _ in range(200):
            handler(event, LambdaContext())
    timers = {name: BatchTimer() for name in events}
    batch = max(1, effort.warm_calls // 10)
    for _ in range(10):
        for name, event in events.items():
            with timers[name].batch(batch):
                for _ in range(batch):
                    handler(event, LambdaContext())
    return {name: timer.medians() for name, timer in timers.items()}


def _child(kind: str, mode: str, effort: Effort) -> None:
    # Keep our stdout for the report: handlers log to it.
    report = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    server = importlib.import_module(SERVERS[kind])
    try:
        if mode == "chess":
            from bench.chess import ALL_PLIES, time_moves

            report.write(json.dumps(time_moves(server, effort.chess_calls, ALL_PLIES)) + "\n")
        elif mode in COLD_MODES:
            _cold(kind, mode, server)
            report.write("ready\n")
        else:
            report.write(json.dumps(_warm(kind, server, effort)) + "\n")
    except SystemExit as failed:  # its message would go to the silenced stderr
        report.write(f"{failed}\n")
        raise
    finally:
        report.flush()


def _spawn(kind: str, mode: str, effort: Effort) -> tuple[dict[str, float], str]:
    """Seconds from spawning to the child's first line ("wall") and the child's whole CPU time ("cpu"), and
    that line."""
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'lambda_src'}{os.pathsep}{ROOT}", "PYTHONPYCACHEPREFIX": _pycache()}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
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
        raise SystemExit(f"{kind} {mode} run failed (exit {proc.returncode}): {line.strip()}")
    return {"wall": elapsed, "cpu": usage.ru_utime + usage.ru_stime}, line


@functools.cache
def _pycache() -> str:
    """This run's bytecode cache for the children (outside the repository and the virtualenv)."""
    path = tempfile.mkdtemp(prefix="bench-pycache-")
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def _rounds(runs: int) -> list[tuple[str, ...]]:
    return [KINDS[i % len(KINDS) :] + KINDS[: i % len(KINDS)] for i in range(runs)]


def cold_starts(effort: Effort, modes: tuple[str, ...] = COLD_MODES) -> Iterator[tuple[str, str, dict[str, float]]]:
    """(mode, server kind, its `_spawn` times) of each counted cold start: `effort.cold_runs` rounds, the servers
    taking turns. First runs fill the bytecode cache and the OS file cache; not counted."""
    for kind in KINDS:
        for mode in modes:
            _spawn(kind, mode, effort)
    for order in _rounds(effort.cold_runs):
        for mode in modes:
            for kind in order:
                yield mode, kind, _spawn(kind, mode, effort)[0]


def measure(effort: Effort) -> dict[str, dict[str, float]]:
    """Medians in seconds, {metric: {kind: seconds}}, for the metrics cold, cold_list, cold_chess, warm, warm_list,
    warm_read, chess_opening, chess_middle and chess_deep, each as wall clock and as CPU time (the name with
    "_cpu")."""
    samples: dict[str, dict[str, list[float]]] = {}

    def add(metric: str, kind: str, times: dict[str, float]) -> None:
        for clock, suffix in (("wall", ""), ("cpu", "_cpu")):
            samples.setdefault(metric + suffix, {k: [] for k in KINDS})[kind].append(times[clock])

    for mode, kind, times in cold_starts(effort):
        add(mode, kind, times)
    for order in _rounds(effort.warm_runs):
        for kind in order:
            warm = json.loads(_spawn(kind, "warm", effort)[1])
            add("warm", kind, warm["call"])
            add("warm_list", kind, warm["list"])
            add("warm_read", kind, warm["read"])
            chess = json.loads(_spawn(kind, "chess", effort)[1])
            add("chess_opening", kind, chess["opening"])
            add("chess_middle", kind, chess["middle"])
            add("chess_deep", kind, chess["deep"])
    return {metric: {k: statistics.median(v) for k, v in by_kind.items()} for metric, by_kind in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description="A child process of `python -m bench`.")
    parser.add_argument("--child", choices=KINDS, required=True)
    parser.add_argument("--mode", choices=(*COLD_MODES, "warm", "chess"), default="cold")
    parser.add_argument("--warm-calls", type=int, default=Effort.warm_calls)
    parser.add_argument("--chess-calls", type=int, default=Effort.chess_calls)
    args = parser.parse_args()
    _child(args.child, args.mode, Effort(warm_calls=args.warm_calls, chess_calls=args.chess_calls))


if __name__ == "__main__":
    main()
