"""`python -m widget_mcp.local` as a child process on a free port, for tests and benchmarks.

Start-up is awaited by reading its banner, with a bound, never by sleeping.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from widget_mcp.local.aws import free_port

ROOT = Path(__file__).resolve().parents[3]
READY = "Press Ctrl-C"


@dataclass
class LocalServer:
    proc: subprocess.Popen[str]
    base: str
    output: list[str] = field(default_factory=list)


def _banner_lines(proc: subprocess.Popen[str]) -> queue.Queue[str]:
    """The child's lines up to its banner's last, read by a thread so that waiting for them is bounded even when
    the child prints nothing ("" at the end of its output). Later lines are left to the caller."""
    lines: queue.Queue[str] = queue.Queue()
    stdout = proc.stdout
    assert stdout is not None

    def read() -> None:
        for line in stdout:
            lines.put(line)
            if READY in line:
                return
        lines.put("")

    threading.Thread(target=read, name="banner-reader", daemon=True).start()
    return lines


@contextmanager
def local_server(
    table: str,
    *,
    timeout: float = 30.0,
    settings: Mapping[str, str] | None = None,
    reload: bool = False,
    root: Path = ROOT,
) -> Iterator[LocalServer]:
    """Run local mode from the repository at `root` with a clean environment (no inherited AWS_*, ALLOWED_HOSTS,
    CORS_ORIGINS, WIDGET_*, AUTH_MODE, OAUTH_* or RELOAD settings), plus `settings`.

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
    output: list[str] = []
    lines = _banner_lines(proc)
    deadline = time.monotonic() + timeout
    while not any(READY in line for line in output):
        try:
            line = lines.get(timeout=max(deadline - time.monotonic(), 0))
        except queue.Empty:
            line = ""
        if not line:
            proc.kill()
            proc.wait()
            raise RuntimeError("local server did not start:\n" + "".join(output))
        output.append(line)
    try:
        yield LocalServer(proc, f"http://127.0.0.1:{port}", output)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)
