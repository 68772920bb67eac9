"""Benchmark: warm tools/call and cold start through the Lambda handler, ours against the SDK baseline.

    python -m bench.endpoint [--cold-runs 7] [--warm-calls 2000]

Each figure is measured in fresh child processes, alternating ours and baseline so that machine noise
hits both alike; the report gives medians and the ratio ours/baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("ours", "baseline")


def _child(kind: str, mode: str, calls: int) -> None:
    # Keep our stdout for the report: handlers log to it.
    report = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    module = __import__(f"bench.{kind}", fromlist=["make_handler", "TOOL"])
    from bench.events import LambdaContext, http_v2_event, tool_call

    handler = module.make_handler()
    event = http_v2_event(tool_call(module.TOOL, {"message": "hello"}))
    response = handler(event, LambdaContext())
    if response["statusCode"] != 200 or '"isError":false' not in response["body"].replace(" ", ""):
        raise SystemExit(f"{kind}: unexpected first response {response}")
    if mode == "cold":
        report.write("ready\n")
        report.flush()
        return
    for _ in range(200):
        handler(event, LambdaContext())
    per_call = []
    batch = max(1, calls // 10)
    for _ in range(10):
        started = time.perf_counter()
        for _ in range(batch):
            handler(event, LambdaContext())
        per_call.append((time.perf_counter() - started) / batch)
    report.write(json.dumps({"per_call": statistics.median(per_call)}) + "\n")
    report.flush()


def _spawn(kind: str, mode: str, calls: int) -> tuple[float, str]:
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'lambda_src'}{os.pathsep}{ROOT}"}
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench.endpoint", "--child", kind, "--mode", mode, "--warm-calls", str(calls)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - started
    proc.wait(timeout=120)
    if proc.returncode != 0 or not line:
        raise SystemExit(f"{kind} {mode} run failed (exit {proc.returncode})")
    return elapsed, line


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--child", choices=KINDS)
    parser.add_argument("--mode", choices=("cold", "warm"), default="cold")
    parser.add_argument("--cold-runs", type=int, default=7)
    parser.add_argument("--warm-calls", type=int, default=2000)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.mode, args.warm_calls)
        return

    cold: dict[str, list[float]] = {k: [] for k in KINDS}
    warm: dict[str, list[float]] = {k: [] for k in KINDS}
    for kind in KINDS:  # first runs warm the OS file cache and .pyc files; not counted
        _spawn(kind, "cold", 1)
    for _ in range(args.cold_runs):
        for kind in KINDS:
            cold[kind].append(_spawn(kind, "cold", 1)[0])
    for _ in range(3):
        for kind in KINDS:
            warm[kind].append(json.loads(_spawn(kind, "warm", args.warm_calls)[1])["per_call"])

    rows = []
    for label, data, unit, scale, target in (
        ("warm tools/call", warm, "ms", 1000, 0.25),
        ("cold start to first response", cold, "ms", 1000, 0.75),
    ):
        ours, base = statistics.median(data["ours"]), statistics.median(data["baseline"])
        ratio = ours / base
        rows.append((label, ours * scale, base * scale, unit, ratio, target))
    print(f"{'measure':32} {'ours':>10} {'baseline':>10}  {'ratio':>6}  target")
    for label, ours_v, base_v, unit, ratio, target in rows:
        verdict = "met" if ratio <= target else "missed"
        print(f"{label:32} {ours_v:8.3f}{unit} {base_v:8.3f}{unit}  {ratio:6.3f}  <= {target} ({verdict})")


if __name__ == "__main__":
    main()
