"""Every module of `make bench` imports: a name it takes from the code it measures (infra, lambda_src) that moved or
was renamed fails here, in `make test`, not halfway through a benchmark run."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.mark.parametrize("name", sorted(p.stem for p in BENCH.glob("*.py") if p.stem != "__main__"))
def test_each_bench_module_imports(name: str) -> None:
    importlib.import_module(f"bench.{name}")
