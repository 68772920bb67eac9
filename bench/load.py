"""`make load` (`python -m bench.load [--users N] [--duration S] [--url URL] [--scenario hot]`): many virtual users
(load_users.py; with SCENARIO=hot, all on one game and one form: load_hot.py)
against `make dev`'s server, started here on a free port (or against `--url`, a deployment's origin), then the
latency per tool, the outcomes by error code, and the ledger check (load_ledger.py). Exits 1 when the ledger is not
clean.

The local server is `make dev`'s own (`python -m widget_mcp.local`, RELOAD=0), with the per-caller limits raised:
the users make several calls a second each from one address, which the default rate limit (120 calls a minute per
caller) would refuse as it should. Against a deployment its own limits apply, and rate_limited shows in the table.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from widget_mcp.local.process import local_server

from bench.load_hot import HotPlan, drive_hot, partition_lines
from bench.load_ledger import Verdict, check
from bench.load_users import Plan, Tally, drive, read_back

# What the local server is given for the run (printed with the results).
LOAD_LIMITS = {
    "RATE_LIMIT_CALLS": "1000000",
    "QUOTA_LIVE_GAMES": "1000",
    "QUOTA_LIVE_FORMS": "1000",
    "QUOTA_WAITING_CALLS": "1000",
}
START_SECONDS = 60


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), math.ceil(fraction * len(ordered))))
    return ordered[rank - 1]


def report(tally: Tally, seconds: float) -> str:
    lines = [
        f"{'tool':<20} {'calls':>7} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}  outcomes",
    ]
    total = errors = 0
    by_code: dict[str, int] = {}
    for tool in sorted(tally.latencies):
        ms = [s * 1000 for s in tally.latencies[tool]]
        outcomes = tally.outcomes[tool]
        total += len(ms)
        for code, n in outcomes.items():
            if code != "ok":
                errors += n
                by_code[code] = by_code.get(code, 0) + n
        spelled = ", ".join(f"{code} {n}" for code, n in sorted(outcomes.items(), key=lambda kv: -kv[1]))
        lines.append(
            f"{tool:<20} {len(ms):>7} {percentile(ms, 0.5):>8.1f} {percentile(ms, 0.95):>8.1f} "
            f"{percentile(ms, 0.99):>8.1f}  {spelled}"
        )
    lines.append(f"{total} calls in {seconds:.0f} s ({total / seconds:.0f}/s); errors by code:")
    for code, n in sorted(by_code.items(), key=lambda kv: -kv[1]):
        expected = " (expected: the losing side of a race at one ply)" if code == "conflict" else ""
        lines.append(f"  {code:<18} {n:>7}  {100 * n / total:.2f}% of calls{expected}")
    if not by_code:
        lines.append("  none")
    return "\n".join(lines)


async def run(url: str, plan: Plan) -> tuple[Tally, Verdict, float]:
    start, cpu = time.monotonic(), time.process_time()
    tally, ledger = await drive(url, plan)
    seconds = time.monotonic() - start
    # Whether the users themselves were the bottleneck: their process's share of the run's CPU.
    print(f"  the users' own process used {time.process_time() - cpu:.0f} s of CPU in {seconds:.0f} s", flush=True)
    verdict = check(ledger, await read_back(url, ledger))
    return tally, verdict, seconds


async def run_hot(url: str, plan: HotPlan) -> tuple[Tally, Verdict, float, list[str]]:
    """SCENARIO=hot (load_hot.py): many users on one game and one form."""
    tally, ledger, counts, hot = await drive_hot(url, plan)
    print(f"  {hot.games} hot games and {hot.forms} hot forms in turn", flush=True)
    verdict = check(ledger, await read_back(url, ledger))
    return tally, verdict, counts.seconds, partition_lines(counts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=int(os.environ.get("USERS") or 20))
    parser.add_argument("--duration", type=float, default=float(os.environ.get("DURATION") or 45))
    parser.add_argument("--url", default=os.environ.get("URL") or None, help="a deployment's origin (no /mcp)")
    parser.add_argument(
        "--scenario",
        choices=("mixed", "hot"),
        default=os.environ.get("SCENARIO") or "mixed",
        help="mixed: each user on games and forms of its own; hot: every user on one game (and one form)",
    )
    args = parser.parse_args(argv)
    url = args.url.removesuffix("/").removesuffix("/mcp") if args.url else None
    with _target(url) as target:
        print(f"load: {args.users} users for {args.duration:g} s against {target}, {args.scenario}", flush=True)
        if url is None:
            print("  local server: " + " ".join(f"{k}={v}" for k, v in LOAD_LIMITS.items()), flush=True)
        deadline = time.monotonic() + args.duration
        extra: list[str] = []
        if args.scenario == "hot":
            tally, verdict, seconds, extra = asyncio.run(run_hot(target, HotPlan(users=args.users, deadline=deadline)))
        else:
            tally, verdict, seconds = asyncio.run(run(target, Plan(users=args.users, deadline=deadline)))
    print(report(tally, seconds))
    for line in extra:
        print(line)
    print(verdict.summary())
    for line in (verdict.lost_moves + verdict.doubled_moves + verdict.lost_answers + verdict.doubled_answers)[:20]:
        print(f"  {line}")
    return 0 if verdict.clean else 1


@contextmanager
def _target(url: str | None) -> Iterator[str]:
    """The deployment named, or make dev's server started for the run."""
    if url is not None:
        yield url
        return
    with local_server("load-state", timeout=START_SECONDS, settings={**LOAD_LIMITS, "LOG_LEVEL": "WARNING"}) as server:
        yield server.base


if __name__ == "__main__":
    sys.exit(main())
