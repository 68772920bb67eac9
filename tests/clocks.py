"""Clocks for tests of fixed time windows, which the wall clock may cross in the middle of a test."""

from __future__ import annotations

import time
from collections.abc import Callable


def mid_window(width: int) -> Callable[[], float]:
    """A clock stopped halfway through the current `width`-second window: every call a test makes falls in one
    window of a fixed-window rate limit, wherever the wall clock stands when the test runs (a test that started a
    second before a minute turned saw its last call counted in a fresh window, and not refused)."""
    now = time.time()
    stopped = now - now % width + width / 2
    return lambda: stopped


class Clock:
    """A clock a test moves by hand (`clock.now += 60`), for the code that takes one."""

    def __init__(self, now: float = 1_900_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
