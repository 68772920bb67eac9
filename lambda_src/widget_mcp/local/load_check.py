"""Local mode loads every app's handlers at start and after each reload, so that a mistake in one (a syntax error
in its domain.py, a bad import) is printed at once with its file and line, instead of showing only as an
internal_error when the tool is first called.

It reuses what a SnapStart snapshot does before it is taken (`wiring.prepare_snapshot`: each book's `warm_up`
call, which keeps no state), and reads the failures that the runtime logs while it masks them in the results.
"""

from __future__ import annotations

import logging
import traceback
from typing import TYPE_CHECKING

from widget_mcp.local.serve_failure import failure_summary

if TYPE_CHECKING:
    from widget_mcp.wiring import Core


class _Failures(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def load_every_app(core: Core) -> list[str]:
    """Make every app's warm-up call; print each failure's traceback and return one line per failure."""
    from widget_mcp.toolkit import failures
    from widget_mcp.wiring import prepare_snapshot

    caught = _Failures()
    log = logging.getLogger(failures.__name__)
    log.addHandler(caught)
    propagate, log.propagate = log.propagate, False  # printed below, once, in full
    try:
        prepare_snapshot(core)
    finally:
        log.removeHandler(caught)
        log.propagate = propagate
    lines = []
    for record in caught.records:
        error = record.exc_info[1] if record.exc_info else None
        if error is None:
            continue
        tool = getattr(record, "tool", "a tool")
        print("".join(traceback.format_exception(error)), end="", flush=True)
        lines.append(f"{tool} cannot load its handler: {failure_summary(error)}")
    return lines
