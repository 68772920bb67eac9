"""The three servers `make bench` compares answer every request it times (so a broken seed or request fails here,
not in the middle of a benchmark run): each bench child, run with a tiny workload, reports instead of failing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("kind", ["ours", "sdk", "awslabs"])
@pytest.mark.parametrize("mode", ["cold_list", "cold_chess", "warm", "chess"])
def test_each_bench_child_gets_its_requests_answered(kind: str, mode: str) -> None:
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'lambda_src'}{os.pathsep}{ROOT}"}
    args = ["--child", kind, "--mode", mode, "--warm-calls", "10", "--chess-calls", "5"]
    done = subprocess.run(
        [sys.executable, "-m", "bench.endpoint", *args], cwd=ROOT, env=env, capture_output=True, timeout=300
    )
    assert done.returncode == 0, done.stdout.decode()[-2000:]
    report = done.stdout.decode().strip()
    if mode.startswith("cold"):
        assert report == "ready"
    else:
        timings = json.loads(report)
        names = {"warm": {"call", "list", "read"}, "chess": {"opening", "middle", "deep"}}[mode]
        assert set(timings) == names
