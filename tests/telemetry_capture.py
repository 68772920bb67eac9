"""What the function's telemetry writes, read back as JSON: the EMF documents it prints and the lines its logger
writes, in that order. One place for the capture the telemetry tests share."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from aws_lambda_powertools import Logger


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))  # formatted now, while the call's keys are set


@contextmanager
def written_lines(logger: Logger, capsys: pytest.CaptureFixture[str]) -> Iterator[list[dict[str, Any]]]:
    """The lines written inside the block, filled in when it ends. Loggers of one service share their formatter in a
    process, so the keys it had before (a handler's function_name, say) are given back, and those added inside are
    dropped."""
    formatter = logger.registered_formatter
    kept = dict(formatter.get_current_keys())
    capture = _Lines()
    capture.setFormatter(formatter)
    logger.addHandler(capture)
    capsys.readouterr()
    found: list[dict[str, Any]] = []
    try:
        yield found
    finally:
        logger.removeHandler(capture)
        formatter.clear_state()
        formatter.append_keys(**kept)
    printed = [line for line in capsys.readouterr().out.splitlines() if line.startswith('{"_aws"')]
    found.extend(json.loads(line) for line in printed + capture.lines)
