"""Which machine a run measured, and how loaded it was: ratios compare only across runs on one machine, and on a
loaded one a wall-clock batch of the slower server is preempted more, so its wall-clock ratios read high."""

from __future__ import annotations

import os
import platform
import threading
from pathlib import Path

CPUINFO = Path("/proc/cpuinfo")


def cpu_model(cpuinfo: Path = CPUINFO) -> str:
    """The first `model name` in /proc/cpuinfo (the processor, or "unknown CPU" where there is none)."""
    try:
        lines = cpuinfo.read_text(errors="replace").splitlines()
    except OSError:
        lines = []
    for line in lines:
        key, _, value = line.partition(":")
        if key.strip() == "model name" and value.strip():
            return " ".join(value.split())
    return platform.processor() or "unknown CPU"


def describe() -> str:
    """e.g. "Intel(R) Xeon(R) Processor, 2 vCPUs, x86_64, Linux 6.18.44, Python 3.11.7"."""
    return (
        f"{cpu_model()}, {os.cpu_count()} vCPUs, {platform.machine()}, {platform.system()} {platform.release()},"
        f" Python {platform.python_version()}"
    )


class LoadWatch:
    """The highest one-minute load average seen from `start` to `stop`, read every `every` seconds."""

    def __init__(self, every: float = 5.0) -> None:
        self.every = every
        self.first = self.last = self.peak = os.getloadavg()[0]
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="load-watch", daemon=True)

    def _read(self) -> None:
        self.last = os.getloadavg()[0]
        self.peak = max(self.peak, self.last)

    def _watch(self) -> None:
        while not self._done.wait(self.every):
            self._read()

    def start(self) -> LoadWatch:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._done.set()
        self._thread.join()
        self._read()

    @property
    def loaded(self) -> bool:
        """More runnable work than vCPUs at some point: wall-clock timings include waiting for a core."""
        return self.peak > (os.cpu_count() or 1)
