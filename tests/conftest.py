"""Shared fixtures: settings for a test host, and the service core built from them."""

from __future__ import annotations

import pytest
from widget_mcp.settings import Settings
from widget_mcp.wiring import Core, build_core

TEST_HOST = "abc123.execute-api.eu-west-1.amazonaws.com"
WIDGET_BASE = "https://d111111abcdef8.cloudfront.net/widgets"


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    return Settings(
        allowed_hosts=(TEST_HOST, "127.0.0.1:*", "localhost:*"),
        widget_base_url=WIDGET_BASE,
        table_name="test-state",
    )


@pytest.fixture
def core(settings: Settings) -> Core:
    return build_core(settings)
