"""The fuzz tests' case counter, and the summary it prints at the end of a run, summed over xdist's workers."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Tally:
    """Cases executed across the session, and the wall time spent in fuzz tests."""

    profile: str = ""
    cases: int = 0
    seconds: float = 0.0
    by_test: dict[str, int] = field(default_factory=dict)
    _current: str = ""

    def start(self, test: str) -> None:
        self._current = test

    def count(self) -> None:
        self.cases += 1
        self.by_test[self._current] = self.by_test.get(self._current, 0) + 1

    def report(self) -> dict[str, Any]:
        """What a worker hands the controller (`merge`)."""
        return {k: v for k, v in asdict(self).items() if not k.startswith("_")}

    def merge(self, report: dict[str, Any]) -> None:
        self.profile = report["profile"]
        self.cases += report["cases"]
        self.seconds += report["seconds"]
        for test, count in report["by_test"].items():
            self.by_test[test] = self.by_test.get(test, 0) + count

    def summary(self) -> list[str]:
        lines = [f"{count:>7}  {test}" for test, count in sorted(self.by_test.items())]
        rate = self.cases / max(self.seconds, 1e-9)
        total = f"fuzz profile {self.profile!r}: {self.cases} cases in {self.seconds:.1f} s ({rate:.0f} cases/s)"
        return [*lines, total]


TALLY = Tally()
