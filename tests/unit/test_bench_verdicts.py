"""The bench names its machine and, on a loaded one, judges the warm targets by CPU time, saying which measure
each verdict uses."""

from __future__ import annotations

from pathlib import Path

from bench.__main__ import _endpoint_targets
from bench.machine import cpu_model
from bench.report import verdict

KINDS = ("ours", "sdk", "awslabs")


def figures(wall: float, cpu: float) -> dict[str, dict[str, float]]:
    """Every endpoint metric with ours at `wall` (`cpu` in CPU time) and both baselines at 1 ms."""
    metrics = ("warm", "warm_list", "warm_read", "chess_opening", "chess_middle", "chess_deep", "cold", "cold_list")
    m: dict[str, dict[str, float]] = {}
    for metric in metrics:
        m[metric] = {"ours": wall, "sdk": 1.0, "awslabs": 1.0}
        m[f"{metric}_cpu"] = {"ours": cpu, "sdk": 1.0, "awslabs": 1.0}
    return m


def verdicts(loaded: bool) -> dict[str, str]:
    return {t.what: verdict(t) for t in _endpoint_targets(figures(wall=6.0, cpu=3.0), loaded)}


def test_on_a_loaded_machine_warm_targets_go_by_cpu_time_and_cold_ones_by_wall_clock() -> None:
    lines = verdicts(loaded=True)
    warm = lines["warm trivial tools/call vs awslabs"]
    assert warm.startswith("warm trivial tools/call vs awslabs ≤ 4.0×, by CPU time: 3.00×, met")
    assert "wall clock 6.00×" in warm
    cold = lines["cold start to first tools/call vs SDK"]
    assert cold.startswith("cold start to first tools/call vs SDK ≤ 0.75×, by wall clock: 6.00×, MISSED")
    assert "CPU time 3.00×" in cold


def test_on_a_quiet_machine_every_target_goes_by_wall_clock_and_names_it() -> None:
    lines = verdicts(loaded=False)
    warm = lines["warm trivial tools/call vs awslabs"]
    assert warm.startswith("warm trivial tools/call vs awslabs ≤ 4.0×, by wall clock: 6.00×, MISSED by 2.00×")
    assert "CPU time 3.00×" in warm
    assert all(", by wall clock: " in line for line in lines.values())


def test_the_cpu_model_is_the_first_model_name_in_cpuinfo(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: Intel(R)  Xeon(R) Processor\n\nmodel name\t: other\n")
    assert cpu_model(cpuinfo) == "Intel(R) Xeon(R) Processor"
