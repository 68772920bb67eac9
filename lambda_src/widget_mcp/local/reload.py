"""`make dev`'s reloads: this process keeps the listening socket, moto and the local issuer's key; the app runs in a
worker process that is replaced whenever a Python file under lambda_src/ or the widget manifest changes.

Requests that arrive while the worker is replaced wait in the socket's backlog and are answered by the next one;
state in moto (games, forms) is untouched. A worker whose app fails to build answers every request 503 with the
error (it must not exit: the socket stays open here, and requests would wait in its backlog forever).

Each worker is forked from a multiprocessing fork server that has the heavy third-party libraries (the MCP SDK,
FastAPI, pydantic, boto3, …) imported once, and imports this project's code afresh: a reload costs our own imports
and the app's assembly, not the ~4 s of a cold interpreter. (uvicorn's reloaders spawn each worker cold, and see
only `*.py`: StatReload misses new and deleted files, WatchFilesReload needs a dependency this project does not
have.)
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import multiprocessing
import signal
import socket
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.context import ForkServerContext, SpawnContext
from multiprocessing.process import BaseProcess
from multiprocessing.synchronize import Event as EventType
from pathlib import Path
from types import FrameType

from widget_mcp.local.serve import Restart, ServeOptions, serve

POLL_SECONDS = 0.25
# Imported once by the fork server, so each worker starts with them loaded. Third-party packages only: a module of
# this project imported there would be the fork server's copy forever, and its changes would never show.
PRELOAD = [
    "anyio",
    "aws_lambda_powertools",
    "boto3",
    "botocore.session",
    "cryptography.hazmat.primitives.asymmetric.rsa",
    "fastapi",
    "httpx",
    "jsonschema",
    "jwt",
    "mcp",
    "mcp.server",
    "mcp.server.mcpserver",
    "mcp_types",
    "pydantic",
    "sse_starlette",
    "starlette.applications",
    "uvicorn",
]


class Watch:
    """The state of the watched files: every `*.py` under `python_dirs` (by modification time) and the widget
    manifest (by content, and only once it parses: Vite rewrites it unchanged on its first build, and a
    half-written manifest is read again on the next poll)."""

    def __init__(self, python_dirs: Sequence[Path], manifest: Path) -> None:
        self.python_dirs = [d.resolve() for d in python_dirs]
        self.manifest = manifest.resolve()
        self._seen = self._state({})

    def _state(self, previous: dict[Path, object]) -> dict[Path, object]:
        state: dict[Path, object] = {}
        for directory in self.python_dirs:
            for path in directory.rglob("*.py"):
                try:
                    state[path] = path.stat().st_mtime_ns
                except OSError:  # removed meanwhile, or a dangling editor lock link
                    continue
        try:
            content = self.manifest.read_bytes()
        except OSError:
            return state
        try:
            json.loads(content)
        except ValueError:
            if self.manifest in previous:
                state[self.manifest] = previous[self.manifest]
            return state
        state[self.manifest] = hashlib.sha256(content).hexdigest()
        return state

    def changes(self) -> list[Path]:
        """The files added, removed or changed since the last call."""
        now = self._state(self._seen)
        changed = sorted(p for p in now.keys() | self._seen.keys() if now.get(p) != self._seen.get(p))
        self._seen = now
        return changed


@dataclass
class Worker:
    """What a worker process runs (pickled into each one): serve the app on the inherited socket. `announced` is
    set once a worker printed the banner: until then (a change before the first start) the next one prints it."""

    options: ServeOptions
    announced: EventType
    restart: Restart | None = None


def _work(worker: Worker, sockets: list[socket.socket]) -> None:
    # Ctrl-C reaches the whole terminal's process group: uvicorn re-raises it once shut down; the parent reports it.
    with contextlib.suppress(KeyboardInterrupt):
        serve(worker.options, sockets, worker.restart, worker.announced.set, explain_failure=True)


def _context() -> ForkServerContext | SpawnContext:
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


def _shown(path: Path, root: Path) -> str:
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


class Supervisor:
    """Runs the worker and replaces it on every change `watch` sees, until SIGINT or SIGTERM."""

    def __init__(self, options: ServeOptions, sockets: list[socket.socket], watch: Watch, root: Path) -> None:
        self._context = _context()
        self.worker = Worker(options, self._context.Event())
        self.sockets = sockets
        self.watch = watch
        self.root = root
        self.stopping = threading.Event()

    def _start(self) -> BaseProcess:
        process = self._context.Process(target=_work, args=(self.worker, self.sockets), name="widget-mcp app")
        process.start()
        return process

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.stopping.set()

    def run(self) -> None:
        previous = {sig: signal.signal(sig, self._on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
        process = self._start()
        reported = False
        try:
            while not self.stopping.wait(POLL_SECONDS):
                changed = self.watch.changes()
                if changed:
                    names = [_shown(p, self.root) for p in changed]
                    listed = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
                    print(f"{listed} changed: restarting the app (moto and its state keep running)", flush=True)
                    announced = self.worker.announced.is_set()
                    self.worker.restart = Restart(tuple(names), time.time()) if announced else None
                    _stop(process)
                    process = self._start()
                    reported = False
                elif process.exitcode is not None and process.exitcode > 0 and not reported:
                    reported = True
                    print(
                        f"the app stopped with an error (exit code {process.exitcode}): fix it and save, "
                        "and it starts again",
                        flush=True,
                    )
        finally:
            _stop(process)
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def _stop(process: BaseProcess) -> None:
    """SIGTERM: uvicorn shuts down gracefully (open /events streams end first, requests get their grace)."""
    if process.exitcode is None:
        process.terminate()
    process.join()


def serve_with_reload(options: ServeOptions, listening: socket.socket, watch: Watch, root: Path) -> None:
    Supervisor(options, [listening], watch, root).run()
