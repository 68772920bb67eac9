"""The benchmark table: one row per metric, a column per server, ratios ours/baseline; and target verdicts."""

from __future__ import annotations

from dataclasses import dataclass

KINDS = ("ours", "sdk", "awslabs")
DASH = "—"


@dataclass(frozen=True)
class Row:
    metric: str
    unit: str
    values: dict[str, float]  # by server kind; a missing kind prints as a dash
    decimals: int | None = None


@dataclass(frozen=True)
class Target:
    """`ours` ≤ `limit` (a ratio to the SDK baseline when `unit` is "×")."""

    what: str
    measured: float
    limit: float
    unit: str
    note: str = ""  # e.g. the absolute figures behind a ratio
    decimals: int | None = None
    measure: str = ""  # what the figure is, where a run has more than one ("CPU time", "wall clock")

    @property
    def met(self) -> bool:
        return self.measured <= self.limit


def number(value: float, decimals: int | None = None) -> str:
    """Three significant figures or so (or a fixed number of decimals), without scientific notation."""
    if decimals is not None:
        return f"{value:,.{decimals}f}"
    if value >= 100 or float(value).is_integer():
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def ratio(ours: float | None, other: float | None) -> str:
    if ours is None or other is None or other == 0:
        return DASH
    return f"{ours / other:.2f}×" if ours / other < 10 else f"{ours / other:.1f}×"


def table(rows: list[Row]) -> str:
    head = ["metric", "ours", "SDK baseline", "ours/SDK", "awslabs", "ours/awslabs"]
    lines = [head]
    for row in rows:
        cell = {k: f"{number(row.values[k], row.decimals)} {row.unit}".strip() for k in row.values}
        ours, sdk, aws = (row.values.get(k) for k in KINDS)
        sdk_cell, aws_cell = cell.get("sdk", DASH), cell.get("awslabs", DASH)
        lines.append([row.metric, cell["ours"], sdk_cell, ratio(ours, sdk), aws_cell, ratio(ours, aws)])
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]

    def render(cells: list[str]) -> str:
        padded = [c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))]
        return "| " + " | ".join(padded) + " |"

    rule = "|" + "|".join("-" * (w + 1) + (":" if i else "-") for i, w in enumerate(widths)) + "|"
    return "\n".join([render(lines[0]), rule, *(render(line) for line in lines[1:])])


def verdict(target: Target) -> str:
    shown = (
        f"{target.measured:.2f}×" if target.unit == "×" else f"{number(target.measured, target.decimals)} {target.unit}"
    )
    limit = f"{target.limit}×" if target.unit == "×" else f"{number(target.limit)} {target.unit}"
    note = f" {target.note}" if target.note else ""
    what = f"{target.what} ≤ {limit}" + (f", by {target.measure}" if target.measure else "")
    if target.met:
        return f"{what}: {shown}, met{note}"
    gap = target.measured - target.limit
    by = f"{gap:.2f}×" if target.unit == "×" else f"{number(gap, target.decimals)} {target.unit}"
    return f"{what}: {shown}, MISSED by {by}{note}"
