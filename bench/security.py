"""`python -m bench.security [--runs N]`: the CPU time of every hostile input in tests/hostile/, as a ratio to an
ordinary form measured in the same run.

Each entry's steps are sent as JSON-RPC requests (`tools/call`, or the step's method, or its raw POST or resuming
GET) to the endpoint the Lambda handler and uvicorn serve (`McpEndpoint.handle`), on the in-memory store, one fresh
service per run (an entry's `app` alone, and its `settings`; in a session when it has one), each as many times as
the step's `repeat`. An entry's figure is the CPU time of its slowest request (what one request can cost the
function; opening a step's own session is not counted), median of the runs. The baseline is the slowest request of
the seed's flight form: `ask_question`, then a valid `submit_form`. Outcomes are checked as the tests check them, so
a figure never belongs to a request that went wrong.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from dataclasses import dataclass

from tests.hostile_corpus import Entry, Step, endpoint_for, load, names
from tests.seed_forms import FLIGHT

# What the contract promises: no input makes one request run longer than about 2 s of CPU in the function.
CPU_LIMIT_MS = 2000.0
BASELINE = Entry(
    "baseline: the seed's flight form",
    "An ordinary form asked and answered.",
    (
        Step("ask_question", {"question": FLIGHT, "title": "Book a Flight to Japan"}, "ok"),
        Step(
            "submit_form",
            {
                "formId": "$formId",
                "data": {"destinationCity": "Tokyo", "departureDate": "2026-03-01", "returnDate": "2026-03-09"},
            },
            "ok",
        ),
    ),
)


@dataclass(frozen=True)
class Timing:
    entry: Entry
    slowest_ms: float  # CPU time of the entry's slowest request, median over the runs
    step: str  # the tool of that request
    outcome: str


def _run_once(entry: Entry) -> tuple[float, str, str]:
    from widget_mcp.settings import Settings
    from widget_mcp.storage.memory import InMemoryDocumentStore

    # Errors only: every refusal would log a warning line into the report.
    replay = asyncio.run(endpoint_for(entry, Settings(log_level="ERROR"), InMemoryDocumentStore()))
    slowest, tool, outcome = -1.0, "", ""
    for step in entry.steps:
        for _ in range(step.repeat):
            method, headers, body = replay.request(step, asyncio.run(replay.headers_for(step)))
            start = time.process_time()
            reply = asyncio.run(replay.endpoint.handle(method, headers, body))
            spent = (time.process_time() - start) * 1000
            got, message = replay.read(step, reply)
            if got != step.expected("endpoint"):
                raise AssertionError(f"{entry.name}: {step.tool} gave {got} ({message}), not {step.expect}")
            if spent > slowest:
                slowest, tool, outcome = spent, step.tool, got
    return slowest, tool, outcome


def time_entry(entry: Entry, runs: int) -> Timing:
    results = [_run_once(entry) for _ in range(runs)]
    slowest = statistics.median(ms for ms, _, _ in results)
    _, tool, outcome = max(results, key=lambda r: r[0])
    return Timing(entry, slowest, tool, outcome)


def measure(runs: int = 3) -> tuple[Timing, list[Timing]]:
    """The baseline's timing and every corpus entry's, in one run (the baseline first warms the imports)."""
    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    _run_once(BASELINE)
    baseline = time_entry(BASELINE, runs)
    return baseline, [time_entry(load(name), runs) for name in names()]


def report(baseline: Timing, timings: list[Timing]) -> list[str]:
    width = max(len(t.entry.name) for t in timings)
    request = max(14, *(len(t.step) for t in timings))
    base = baseline.slowest_ms
    lines = [
        f"Hostile inputs (tests/hostile/): CPU time of each entry's slowest request, median of the runs; "
        f"baseline = the seed's flight form, {base:.1f} ms ({baseline.step}).",
        f"  {'entry':<{width}}  {'request':<{request}}  {'outcome':<25}  {'CPU ms':>8}  {'× baseline':>10}",
    ]
    for t in sorted(timings, key=lambda t: -t.slowest_ms):
        ratio = t.slowest_ms / base if base else float("nan")
        cells = f"{t.entry.name:<{width}}  {t.step:<{request}}  {t.outcome:<25}  {t.slowest_ms:>8.1f}"
        lines.append(f"  {cells}  {ratio:>9.1f}×")
    worst = max(timings, key=lambda t: t.slowest_ms)
    verdict = "met" if worst.slowest_ms <= CPU_LIMIT_MS else "MISSED"
    lines.append(
        f"  slowest: {worst.entry.name}, {worst.slowest_ms:.0f} ms of CPU ({verdict}: at most {CPU_LIMIT_MS:.0f} ms "
        "per request)"
    )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3, help="runs per entry (the median is reported)")
    args = parser.parse_args()
    print("\n".join(report(*measure(args.runs))))


if __name__ == "__main__":
    main()
