"""`python -m widget_mcp.local` as a child process on a free port, for tests and benchmarks.

Start-up is awaited by reading its banner, with a bound, never by sleeping. The child's output is read for as long
as it runs: unread, its pipe fills once the server has logged about 64 KB, and the server then blocks on its next
log line and stops answering.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from widget_mcp.local.aws import free_port

ROOT = Path(__file__).resolve().parents[3]
READY = "Press Ctrl-C"
KEEP_LINES = 1000


class ServerOutput:
    """The child's output, read by a thread as it comes. The banner (up to the line with READY) is kept whole; of
    the lines after it, the last `keep`. Marks (`seen`) count every line after the banner, kept or not."""

    def __init__(self, stdout: IO[str], keep: int = KEEP_LINES) -> None:
        self.banner: list[str] = []
        self._tail: deque[str] = deque(maxlen=keep)
        self._seen = 0
        self._started = False
        self._ended = False
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, args=(stdout,), name="local-server-output", daemon=True)
        self._reader.start()

    def _read(self, stdout: IO[str]) -> None:
        with contextlib.suppress(ValueError, OSError):
            for line in stdout:
                with self._changed:
                    if self._started:
                        self._tail.append(line)
                        self._seen += 1
                    else:
                        self.banner.append(line)
                        self._started = READY in line
                    self._changed.notify_all()
        with self._changed:
            self._ended = True
            self._changed.notify_all()

    def wait_for_banner(self, timeout: float) -> bool:
        """Whether the banner was printed within `timeout` seconds (False at once if the output ended first)."""
        with self._changed:
            self._changed.wait_for(lambda: self._started or self._ended, timeout)
            return self._started

    def wait_for_end(self, timeout: float) -> None:
        """Wait for the child's output to end (it has exited and its pipe is drained), for at most `timeout`."""
        self._reader.join(timeout)

    @property
    def seen(self) -> int:
        with self._changed:
            return self._seen

    def lines(self) -> list[str]:
        """The banner, then the lines after it that are still kept."""
        with self._changed:
            return [*self.banner, *self._tail]

    def since(self, mark: int) -> str:
        """What was printed after line `mark` (a former `seen`), with a note first if some of it is no longer kept."""
        with self._changed:
            kept_from = self._seen - len(self._tail)
            dropped = max(kept_from - mark, 0)
            tail = list(self._tail)[max(mark - kept_from, 0) :]
        note = [f"[{dropped} earlier lines not kept]\n"] if dropped else []
        return "".join(note + tail)


@dataclass
class LocalServer:
    proc: subprocess.Popen[str]
    base: str
    log: ServerOutput

    @property
    def output(self) -> list[str]:
        """The banner and the last lines printed after it."""
        return self.log.lines()

    def interrupt(self, since: int = 0, timeout: float = 30.0) -> str:
        """SIGINT, as Ctrl-C sends; waits for the child to exit and returns what it printed after line `since`."""
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(timeout=timeout)
        self.log.wait_for_end(timeout)
        return self.log.since(since)


@contextmanager
def local_server(
    table: str,
    *,
    timeout: float = 30.0,
    settings: Mapping[str, str] | None = None,
    reload: bool = False,
    root: Path = ROOT,
    keep: int = KEEP_LINES,
) -> Iterator[LocalServer]:
    """Run local mode from the repository at `root` with a clean environment (no inherited AWS_*, ALLOWED_HOSTS,
    CORS_ORIGINS, WIDGET_*, AUTH_MODE, OAUTH_* or RELOAD settings), plus `settings`. Its output is drained as it
    comes; the last `keep` lines are kept (`LocalServer.log`).

    Without reloads by default (`make dev` has them on): a test server then costs no file watch, no Vite build and
    no second process."""
    port = free_port()
    inherited = ("AWS_", "ALLOWED_HOSTS", "CORS_ORIGINS", "WIDGET_", "AUTH_MODE", "OAUTH_", "RELOAD")
    env = {k: v for k, v in os.environ.items() if not k.startswith(inherited)}
    env["RELOAD"] = "1" if reload else "0"
    env.update(settings or {})
    env.update({"PORT": str(port), "PYTHONPATH": str(root / "lambda_src"), "TABLE_NAME": table})
    proc = subprocess.Popen(
        [sys.executable, "-m", "widget_mcp.local"],
        cwd=root,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert proc.stdout is not None
    log = ServerOutput(proc.stdout, keep)
    try:
        if not log.wait_for_banner(timeout):
            raise RuntimeError("local server did not start:\n" + "".join(log.lines()))
        yield LocalServer(proc, f"http://127.0.0.1:{port}", log)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
        log.wait_for_end(timeout=10)
        proc.stdout.close()
