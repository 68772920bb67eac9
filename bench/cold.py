"""`python -m bench.cold [--runs N] [--modes cold_list,cold,cold_chess]`: the cold-start rows alone, as `make bench`
measures them (bench/endpoint.py: fresh children from a per-run bytecode cache, the servers taking turns), printed
as medians with ours/SDK and ours/awslabs, wall clock and CPU time. A few minutes instead of the full run."""

from __future__ import annotations

import argparse
import statistics

from bench.endpoint import COLD_MODES, KINDS, Effort, cold_starts


def measure_cold(runs: int, modes: tuple[str, ...] = COLD_MODES) -> dict[str, dict[str, dict[str, float]]]:
    """Median seconds {mode: {"wall" | "cpu": {kind: seconds}}}."""
    samples = {mode: {clock: {k: [] for k in KINDS} for clock in ("wall", "cpu")} for mode in modes}
    for mode, kind, times in cold_starts(Effort(cold_runs=runs), modes):
        for clock in ("wall", "cpu"):
            samples[mode][clock][kind].append(times[clock])
    return {
        mode: {clock: {k: statistics.median(v) for k, v in by_kind.items()} for clock, by_kind in clocks.items()}
        for mode, clocks in samples.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--modes", default=",".join(COLD_MODES))
    args = parser.parse_args()
    modes = tuple(args.modes.split(","))
    if not set(modes) <= set(COLD_MODES):
        parser.error(f"--modes takes {','.join(COLD_MODES)}")
    for mode, clocks in measure_cold(args.runs, modes).items():
        for clock, m in clocks.items():
            ours, sdk, aws = (m[k] * 1000 for k in KINDS)
            print(
                f"{mode:<10} {clock:<4} ours {ours:7.1f} ms  SDK {sdk:7.1f} ms  awslabs {aws:7.1f} ms  "
                f"ours/SDK {ours / sdk:.2f}x  ours/awslabs {ours / aws:.2f}x"
            )


if __name__ == "__main__":
    main()
