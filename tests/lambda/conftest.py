"""The Lambda handler is a module-level singleton built from the environment at import, as in AWS.

Its table lives in a moto server on loopback, reached through AWS_ENDPOINT_URL_DYNAMODB like any endpoint.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import boto3
import pytest
from apigw_events import Handler
from widget_mcp.local.aws import SerializedMotoServer
from widget_mcp.storage.table import create_state_table

TABLE = "lambda-test-state"

os.environ.update(
    {
        "ALLOWED_HOSTS": "abc123.execute-api.eu-west-1.amazonaws.com",
        "CORS_ORIGINS": "https://host.example.com",
        "WIDGET_BASE_URL": "https://d111111abcdef8.cloudfront.net/widgets",
        "TABLE_NAME": TABLE,
        "POWERTOOLS_METRICS_NAMESPACE": "WidgetMcpTest",
    }
)


@pytest.fixture(scope="session")
def dynamodb_endpoint() -> Iterator[str]:
    server = SerializedMotoServer()
    server.start()
    url = server.url
    saved = {k: os.environ.get(k) for k in ("AWS_ENDPOINT_URL_DYNAMODB", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")}
    os.environ.update({"AWS_ENDPOINT_URL_DYNAMODB": url, "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"})
    os.environ.setdefault("AWS_DEFAULT_REGION", "eu-west-1")
    create_state_table(boto3.client("dynamodb"), TABLE)
    yield url
    server.stop()
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="session")
def handler(dynamodb_endpoint: str) -> Handler:
    from widget_mcp.handler import handler

    return handler
