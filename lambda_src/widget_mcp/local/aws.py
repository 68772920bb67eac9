"""An embedded moto server on loopback that stands in for DynamoDB and S3."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import boto3
from moto.server import ThreadedMotoServer

from widget_mcp.local.aws_env import REGION
from widget_mcp.storage.table import create_state_table


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass(frozen=True)
class LocalAws:
    endpoint_url: str


@contextmanager
def local_aws(table_name: str, port: int = 0) -> Iterator[LocalAws]:
    """Start moto, point boto3 at it through the standard environment variables, create the state table."""
    port = port or free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    url = f"http://127.0.0.1:{port}"
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
