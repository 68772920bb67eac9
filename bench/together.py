"""`python -m bench.together [--rounds N]`: the warm requests of the three servers in one process, taking turns
batch by batch, so that load on a shared machine hits them alike (the child processes of `make bench` run minutes
apart). CPU time per request, medians of the rounds; ours' ratios against awslabs' trivial tools/call and the SDK's.

The SDK baseline shares the process (and its garbage) with the others here, which costs ours a little: use this as
a cross-check of `make bench`, not instead of it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

from bench.endpoint import WARM_REQUESTS
from bench.events import LambdaContext, succeeded, warm_events


def measure(rounds: int) -> dict[tuple[str, str], float]:
    """Microseconds of CPU time per request, {(server, request): µs}."""
    from bench import awslabs_baseline, ours, sdk_baseline

    servers: dict[str, tuple[Any, dict[str, dict[str, Any]]]] = {}
    for name, module in (("ours", ours), ("sdk", sdk_baseline), ("awslabs", awslabs_baseline)):
        handler = module.make_handler()
        events = warm_events(module)
        for request, event in events.items():
            if not succeeded(handler(event, LambdaContext())):
                raise SystemExit(f"{name} {request} failed")
        servers[name] = (handler, events)
    samples: dict[tuple[str, str], list[float]] = {}
    for _ in range(rounds + 2):  # the first two rounds warm up
        for name, (handler, events) in servers.items():
            calls = 20 if name == "sdk" else 200  # the SDK is ~20× slower: similar time per batch
            for request, event in events.items():
                started = time.process_time()
                for _ in range(calls):
                    handler(event, LambdaContext())
                samples.setdefault((name, request), []).append((time.process_time() - started) / calls * 1e6)
    return {key: statistics.median(values[2:]) for key, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description="Warm requests of the three servers in one process, in turns.")
    parser.add_argument("--rounds", type=int, default=12)
    args = parser.parse_args()
    report = os.fdopen(os.dup(1), "w")  # handlers log to stdout: keep it for the report
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    us = measure(args.rounds)
    report.write(f"CPU time per warm request, medians of {args.rounds} rounds, the servers in turns:\n")
    for request in WARM_REQUESTS:
        cells = ", ".join(f"{name} {us[name, request]:.1f} µs" for name in ("ours", "sdk", "awslabs"))
        report.write(f"  {request:<5} {cells}\n")
    aws_call = us["awslabs", "call"]
    report.write(
        f"  ours/awslabs' call: call {us['ours', 'call'] / aws_call:.2f}×, list {us['ours', 'list'] / aws_call:.2f}×,"
        f" read {us['ours', 'read'] / aws_call:.2f}×; ours/SDK call {us['ours', 'call'] / us['sdk', 'call']:.2f}×\n"
    )
    report.flush()


if __name__ == "__main__":
    main()
