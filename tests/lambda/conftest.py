"""The Lambda handler is a module-level singleton built from the environment at import, as in AWS."""

from __future__ import annotations

import os

import pytest
from apigw_events import Handler

os.environ.update(
    {
        "ALLOWED_HOSTS": "abc123.execute-api.eu-west-1.amazonaws.com",
        "WIDGET_BASE_URL": "https://d111111abcdef8.cloudfront.net/widgets",
        "TABLE_NAME": "lambda-test-state",
        "POWERTOOLS_METRICS_NAMESPACE": "WidgetMcpTest",
    }
)


@pytest.fixture(scope="session")
def handler() -> Handler:
    from widget_mcp.handler import handler

    return handler
