"""The pytest end of the client drivers' line protocol (node/driver_loop.mjs, python/driver_loop.py): a driver runs
as a child process given the MCP URL, takes one JSON command per line and answers each with one JSON line. Every
read is bounded; a driver that dies or stalls fails the test with its stderr."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from client_specs import PYTHON, ROOT, ClientSpec

TIMEOUT = 30.0


class DriverFailed(AssertionError):
    """The driver process died, stalled or printed something that is not an answer."""


class Driver:
    def __init__(self, spec: ClientSpec, url: str) -> None:
        self.spec = spec
        self._stderr = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 (closed by stop())
        env = {**os.environ, "PYTHONPATH": str(PYTHON), "NODE_NO_WARNINGS": "1"}
        self._proc = subprocess.Popen(
            [*spec.command, url],
            cwd=ROOT,
            env=env,
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
        )
        self._selector = selectors.DefaultSelector()
        assert self._proc.stdout is not None
        self._selector.register(self._proc.stdout, selectors.EVENT_READ)

    def ask(self, op: str, **fields: Any) -> dict[str, Any]:
        """Send one command and return its answer ({ok: true, ...} or {ok: false, error: {type, message}})."""
        assert self._proc.stdin is not None
        assert self._proc.stdout is not None
        try:
            self._proc.stdin.write(json.dumps({"op": op, **fields}) + "\n")
            self._proc.stdin.flush()
        except BrokenPipeError:
            raise DriverFailed(self._died(op)) from None
        deadline = time.monotonic() + TIMEOUT
        while not self._selector.select(timeout=max(0.0, deadline - time.monotonic())):
            if time.monotonic() >= deadline:
                raise DriverFailed(f"{self.spec.name}: no answer to {op} within {TIMEOUT:.0f} s\n{self.stderr()}")
        line = self._proc.stdout.readline()
        if not line:
            raise DriverFailed(self._died(op))
        try:
            answer: dict[str, Any] = json.loads(line)
        except json.JSONDecodeError:
            raise DriverFailed(f"{self.spec.name}: {op} answered a line that is not JSON: {line!r}") from None
        return answer

    def stderr(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read()[-4000:]

    def _died(self, op: str) -> str:
        code = self._proc.wait(timeout=TIMEOUT)
        return f"{self.spec.name}: the driver exited ({code}) during {op}:\n{self.stderr()}"

    def stop(self) -> None:
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            self._proc.stdin.close()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._selector.close()
        assert self._proc.stdout is not None
        self._proc.stdout.close()
        self._stderr.close()


def installed(spec: ClientSpec) -> None:
    """Fail, saying how to install it, when the client's driver cannot run: nothing in the matrix skips."""
    if not spec.needs.exists():
        pytest.fail(f"{spec.name} is not installed ({spec.needs} is missing): run `make clients`", pytrace=False)


@contextmanager
def running(spec: ClientSpec, url: str) -> Iterator[Driver]:
    """The client's driver for `url`, installed, stopped on the way out."""
    installed(spec)
    driver = Driver(spec, url)
    try:
        yield driver
    finally:
        driver.stop()
