"""`python -m widget_mcp.local` as a child process on a free port, for tests and benchmarks.

Start-up is awaited by reading its banner, with a bound, never by sleeping.
"""

from __future__ import annotations

import os
import subprocess
import sys
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


@contextmanager
def local_server(
    table: str, *, timeout: float = 30.0, settings: Mapping[str, str] | None = None
) -> Iterator[LocalServer]:
    """Run local mode with a clean environment (no inherited AWS_*, ALLOWED_HOSTS, CORS_ORIGINS, WIDGET_*,
    AUTH_MODE or OAUTH_* settings), plus `settings`."""
    port = free_port()
    inherited = ("AWS_", "ALLOWED_HOSTS", "CORS_ORIGINS", "WIDGET_", "AUTH_MODE", "OAUTH_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(inherited)}
    env.update(settings or {})
    env.update({"PORT": str(port), "PYTHONPATH": str(ROOT / "lambda_src"), "TABLE_NAME": table})
    proc = subprocess.Popen(
        [sys.executable, "-m", "widget_mcp.local"],
        cwd=ROOT,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert proc.stdout is not None
    output: list[str] = []
    deadline = time.monotonic() + timeout
    while not any(READY in line for line in output):
        line = proc.stdout.readline()
        if not line or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("local server did not start:\n" + "".join(output))
        output.append(line)
    try:
        yield LocalServer(proc, f"http://127.0.0.1:{port}", output)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)
