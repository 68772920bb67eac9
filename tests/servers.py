"""Run the app on a real loopback port for HTTP tests, without sleeps: start-up is polled with a bound."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from fastapi import FastAPI
from widget_mcp.local.aws import free_port


@contextmanager
def serve(app: FastAPI, *, timeout: float = 10.0, log_level: str = "warning") -> Iterator[str]:
    port = free_port()
    # As make dev serves (widget_mcp.local.serve): the connection's address is the client's, whatever headers say.
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level=log_level, lifespan="off", proxy_headers=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout)
