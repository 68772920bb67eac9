"""An embedded moto server on loopback that stands in for DynamoDB and S3."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import boto3
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
from werkzeug.serving import BaseWSGIServer, make_server

from widget_mcp.local.aws_env import REGION
from widget_mcp.storage.table import create_state_table


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class _OneRequestAtATime:
    """A WSGI app that runs one request at a time, body included.

    moto's backends check a condition and then write without a lock, so under its threaded server two conditional
    puts expecting the same version can both succeed (reproduced: 8 threads racing on one item, a few rounds in a
    hundred have two winners). DynamoDB applies each conditional write atomically; serializing moto's handling
    gives the same guarantee, so races in tests and `make dev` behave as they do in AWS.
    """

    def __init__(self, app: Any) -> None:
        self._app = app
        self._lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        with self._lock:
            answer = self._app(environ, start_response)
            try:
                return list(answer)
            finally:
                close = getattr(answer, "close", None)
                if close is not None:
                    close()


class SerializedMotoServer:
    """moto's server on a thread, as `moto.server.ThreadedMotoServer`, with every request handled alone."""

    def __init__(self, ip_address: str = "127.0.0.1", port: int = 0) -> None:
        self._address = ip_address
        self.port = port or free_port()
        self._server: BaseWSGIServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self._address}:{self.port}"

    def start(self) -> None:
        app = _OneRequestAtATime(DomainDispatcherApplication(create_backend_app))
        # Threaded, so a client holding a kept-alive connection never blocks another's requests.
        self._server = make_server(self._address, self.port, app, threaded=True, request_handler=MotoRequestHandler)
        self._thread = threading.Thread(target=self._server.serve_forever, name="moto", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join()


@dataclass(frozen=True)
class LocalAws:
    endpoint_url: str


@contextmanager
def local_aws(table_name: str, port: int = 0) -> Iterator[LocalAws]:
    """Start moto, point boto3 at it through the standard environment variables, create the state table."""
    server = SerializedMotoServer(port=port)
    server.start()
    url = server.url
    # The same variables select DynamoDB Local or real AWS; moto accepts any credentials.
    os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = url
    os.environ["AWS_ENDPOINT_URL_S3"] = url
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "local")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "local")
    os.environ.setdefault("AWS_DEFAULT_REGION", REGION)
    try:
        create_state_table(boto3.client("dynamodb"), table_name)
        yield LocalAws(endpoint_url=url)
    finally:
        server.stop()
