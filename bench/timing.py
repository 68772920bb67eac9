"""Per-call time of batches of calls, as wall clock and as the process's CPU time.

Wall clock is what a caller waits; CPU time (every thread of the process, no waiting) is the cross-check that
other work on a shared machine barely moves.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager


class BatchTimer:
    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    @contextmanager
    def batch(self, calls: int, *, counted: bool = True) -> Iterator[None]:
        wall, cpu = time.perf_counter(), time.process_time()
        yield
        if counted:
            self.wall.append((time.perf_counter() - wall) / calls)
            self.cpu.append((time.process_time() - cpu) / calls)

    def medians(self) -> dict[str, float]:
        """Seconds per call: {"wall": ..., "cpu": ...}, medians over the batches."""
        return {"wall": statistics.median(self.wall), "cpu": statistics.median(self.cpu)}
