"""`python -m bench [--quick] [--only endpoint,size,dynamodb,widgets,security]`: every benchmark in one run on this
machine, printed as one table of ours against the two baselines, then footnotes, the hostile inputs' CPU times
against an ordinary form, and target verdicts.
See bench/README.md for the method."""

from __future__ import annotations

import argparse
import datetime
import os
import sys

from bench.chess import DEEP_PLY, MIDDLE_PLY
from bench.endpoint import Effort
from bench.machine import LoadWatch, describe
from bench.report import Row, Target, number, ratio, table, verdict

PARTS = ("endpoint", "size", "dynamodb", "widgets", "security")
QUICK = Effort(cold_runs=3, warm_runs=1, warm_calls=500, chess_calls=25)
MS, MB = 1000.0, 1e6
WIDGET_NAMES = {"chess-board": "chess board", "display": "display host", "form": "form"}


def _endpoint(effort: Effort, rows: list[Row], notes: dict[str, str]) -> dict[str, dict[str, float]]:
    """The endpoint rows and CPU-time footnote; returns the figures (ms) for the target verdicts."""
    from bench.endpoint import measure

    m = {metric: {k: v * MS for k, v in by_kind.items()} for metric, by_kind in measure(effort).items()}
    labels = {  # metric: (row, short label for the CPU-time footnote)
        "warm": ("warm trivial tools/call ¹", "call"),
        "warm_list": ("warm tools/list ⁶", "list"),
        "warm_read": ("warm resources/read ⁶", "read"),
        "chess_opening": ("warm chess_move, opening ²", "opening"),
        "chess_middle": (f"warm chess_move, ply {MIDDLE_PLY} ²", f"ply {MIDDLE_PLY}"),
        "chess_deep": (f"warm chess_move, ply {DEEP_PLY} ²", f"ply {DEEP_PLY}"),
        "cold": ("cold start to first tools/call ⁷", "cold call"),
        "cold_list": ("cold start to initialize + tools/list ⁷", "cold list"),
        "cold_chess": ("cold start to first chess_new_game ⁷", "cold chess"),
    }
    rows += [Row(row, "ms", m[metric]) for metric, (row, _) in labels.items()]
    notes["endpoint"] = "   CPU time instead of wall clock, ours/SDK and ours/awslabs: " + "; ".join(
        f"{label} {ratio(m[f'{metric}_cpu']['ours'], m[f'{metric}_cpu']['sdk'])}"
        f" and {ratio(m[f'{metric}_cpu']['ours'], m[f'{metric}_cpu']['awslabs'])}"
        for metric, (_, label) in labels.items()
    )
    return m


def _endpoint_targets(m: dict[str, dict[str, float]], loaded: bool) -> list[Target]:
    """The endpoint's verdicts. Warm ones go by CPU time when the machine was loaded (more runnable work than
    vCPUs), since the longer wall-clock batches of the slower server are preempted more; cold ones by wall clock."""
    targets: list[Target] = []

    def target(what: str, metric: str, limit: float, baseline: str = "sdk", against: str | None = None) -> None:
        """ours' `metric` ≤ `limit` × the baseline's `against` (the same metric unless named)."""
        against = against or metric
        by_cpu = loaded and not metric.startswith("cold")
        used, other = (f"{metric}_cpu", metric) if by_cpu else (metric, f"{metric}_cpu")
        used_against, other_against = (f"{against}_cpu", against) if by_cpu else (against, f"{against}_cpu")
        ours, base = m[used]["ours"], m[used_against][baseline]
        gap = f", {number(ours - limit * base)} ms over" if ours > limit * base else ""
        name = "SDK" if baseline == "sdk" else "awslabs"
        shown, aside = ("CPU time", "wall clock") if by_cpu else ("wall clock", "CPU time")
        also = ratio(m[other]["ours"], m[other_against][baseline])
        note = f"(ours {number(ours)} ms, {name} {number(base)} ms{gap}; {aside} {also})"
        targets.append(Target(what, ours / base, limit, "×", note, measure=shown))

    target("warm tools/list vs awslabs' trivial tools/call", "warm_list", 1.0, "awslabs", "warm")
    target("warm resources/read vs awslabs' trivial tools/call", "warm_read", 1.0, "awslabs", "warm")
    target("warm trivial tools/call vs awslabs", "warm", 4.0, "awslabs")
    target("warm tools/call vs SDK", "warm", 0.25)
    target("cold start to initialize + tools/list vs SDK", "cold_list", 0.75)
    target("cold start to first tools/call vs SDK", "cold", 0.75)
    target("chess opening move vs the naive full-replay load (SDK)", "chess_opening", 0.5)
    target(f"chess move at ply {MIDDLE_PLY} vs the same", "chess_middle", 0.5)
    target(f"chess move at ply {DEEP_PLY} vs the same", "chess_deep", 0.5)
    return targets


def _size(rows: list[Row], targets: list[Target], notes: dict[str, str]) -> None:
    from widget_mcp.lambda_asset.build import asset, built_manifest, size_bytes
    from widget_mcp.lambda_asset.target import Target as AssetTarget

    from bench.install_size import measure

    sizes = measure()
    rows.append(
        Row("installed size without boto3 ³", "MB", {k: v.total_bytes / MB for k, v in sizes.items()}, decimals=1)
    )
    largest = sorted(sizes["ours"].by_package.items(), key=lambda kv: -kv[1])[:4]
    notes["size"] = "   ours' largest: " + ", ".join(f"{name} {size / MB:.1f} MB" for name, size in largest)
    # What is deployed: the asset leaves out the token-verification libraries unless sign-in is on.
    plain, signed = (asset(AssetTarget("arm64", "3.13", sign_in=on), built_manifest()) for on in (False, True))
    targets.append(Target("Lambda asset (ours, unzipped)", size_bytes(plain) / MB, 30.0, "MB", decimals=1))
    # cryptography (14 MB) comes with token verification (infra/README.md).
    signed_mb = size_bytes(signed) / MB
    targets.append(Target("Lambda asset with sign-in (+ PyJWT, cryptography)", signed_mb, 45.0, "MB", decimals=1))


def _dynamodb(rows: list[Row], notes: dict[str, str]) -> None:
    from bench.dynamodb import measure

    game = measure()
    rows.append(Row("DynamoDB calls per move ⁴", "", {"ours": game.calls_per_move}))
    rows.append(Row(f"game item bytes after {game.plies} plies ⁴", "B", {"ours": game.item_bytes}))
    notes["dynamodb"] = (
        f"   a move is {game.call_mix} (UpdateItem: the caller's rate-limit counter, before the game is read); "
        "one strongly consistent read unit holds 4,096 B"
    )


def _widgets(runs: int, rows: list[Row], targets: list[Target]) -> None:
    from bench.widgets import BUDGETS_KB, bundle_sizes_kb, first_renders_ms

    for widget, size in bundle_sizes_kb().items():
        rows.append(Row(f"widget gzip, {WIDGET_NAMES[widget]} ⁵", "KB", {"ours": size}, decimals=1))
        targets.append(Target(f"{WIDGET_NAMES[widget]} bundle (gzip)", size, BUDGETS_KB[widget], "KB", decimals=1))
    for widget, ms in first_renders_ms(runs).items():
        rows.append(Row(f"widget first render, {WIDGET_NAMES[widget]} ⁵", "ms", {"ours": ms}))


def _security(runs: int, targets: list[Target]) -> list[str]:
    from bench.security import CPU_LIMIT_MS, measure, report

    baseline, timings = measure(runs)
    worst = max(timings, key=lambda t: t.slowest_ms)
    note = f"({worst.entry.name}, {worst.step})"
    targets.append(Target("slowest request of a hostile input (CPU)", worst.slowest_ms, CPU_LIMIT_MS, "ms", note))
    return report(baseline, timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer runs (a smoke test, not for the docs)")
    parser.add_argument("--only", default=",".join(PARTS), help=f"comma-separated subset of {','.join(PARTS)}")
    args = parser.parse_args()
    parts = set(args.only.split(","))
    if not parts <= set(PARTS):
        parser.error(f"--only takes {','.join(PARTS)}")
    effort = QUICK if args.quick else Effort()
    render_runs = 2 if args.quick else 5

    watch = LoadWatch().start()  # other work on the machine shows up in every figure: say how much
    rows: list[Row] = []
    targets: list[Target] = []
    notes: dict[str, str] = {}
    endpoint = _endpoint(effort, rows, notes) if "endpoint" in parts else None
    if "size" in parts:
        _size(rows, targets, notes)
    if "dynamodb" in parts:
        _dynamodb(rows, notes)
    if "widgets" in parts:
        _widgets(render_runs, rows, targets)
    hostile = _security(1 if args.quick else 3, targets) if "security" in parts else []
    watch.stop()
    if endpoint is not None:
        targets[:0] = _endpoint_targets(endpoint, watch.loaded)

    load = f"load average {watch.first:.1f} at start, {watch.last:.1f} at end, {watch.peak:.1f} at most"
    print(f"bench {datetime.date.today().isoformat()} on {describe()}; {load}{' (--quick)' if args.quick else ''}")
    if watch.loaded:
        print(
            f"The load average ({watch.peak:.1f}) exceeded the {os.cpu_count()} vCPUs during the run: wall-clock"
            " ratios are biased (the slower server's longer batches are preempted more)"
            + ("; the warm targets' verdicts use CPU time." if endpoint is not None else ".")
        )
    print("Compare ratios only with runs on the same machine.\n")
    print(table(rows))
    print()
    footnotes = {
        "endpoint": [
            f"Timings are medians: {effort.cold_runs} cold starts and {effort.warm_runs} warm child processes per "
            f"server ({effort.warm_calls} calls, {effort.chess_calls} moves per position), servers taking turns.",
            "¹ ours: display_demo (a widget result); baselines: echo.",
            "² ours: ChessService on the in-memory store; baselines: games in a dict, replayed move by move.",
            "⁶ ours: all its tools (~21 KB) and the chess board template, from the answer cache; baselines: their own"
            " tools and one resource of the same HTML size, answered by the server.",
            "⁷ spawn to the answered request(s), every server from bytecode (compiled by an unrecorded first run);"
            " chess_new_game: ours on the in-memory store, baselines a dict. awslabs' includes importing boto3.",
            notes.get("endpoint", ""),
        ],
        "size": [
            "³ locked versions, arm64 / CPython 3.13 wheels, without boto3 and its dependencies (the runtime's).",
            notes.get("size", ""),
        ],
        "dynamodb": [
            "⁴ ours only: the minimal baselines keep no state; measured on moto with real boto3 calls.",
            notes.get("dynamodb", ""),
        ],
        "security": ["", *hostile],
        "widgets": [
            f"⁵ ours only (the baselines serve no widgets): gzip -9 of entry + chunks + CSS; render: median of "
            f"{render_runs} in headless Chromium, frame start to the widget's first-render mark.",
        ],
    }
    for part in PARTS:
        if part in parts:
            print(*footnotes[part], sep="\n")
    if targets:
        print("Targets:")
        for target in targets:
            print(f"  {verdict(target)}")


if __name__ == "__main__":
    sys.exit(main())
