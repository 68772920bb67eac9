"""Shared fixtures: settings for a test host, and the service core built from them."""

from __future__ import annotations

import os
from typing import Any

import pytest
from fuzz_tally import TALLY
from widget_mcp.local.aws_env import isolate_from_user_aws
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.wiring import Core, build_core
from worker_groups import (  # noqa: F401 - imported to register them: the hooks that spread tests over xdist workers
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_configure_node,
    pytest_unconfigure,
    pytest_xdist_make_scheduler,
)

# The tests never read the user's AWS configuration (AWS_PROFILE, ~/.aws, their keys): they run as on a machine
# without any, as CI's is, and give moto keys where they make a client.
isolate_from_user_aws(moto_keys=False)

TEST_HOST = "abc123.execute-api.eu-west-1.amazonaws.com"
WIDGET_BASE = "https://d111111abcdef8.cloudfront.net/widgets"

# The suite's shared servers (the Lambda handler module, the browser layer's `make dev`, the soak's) serve every test
# from one address and a handful of users, so the per-caller limits are set as high as the settings allow: one
# test's calls never use up another's allowance, and every call still goes through the counters and the quota
# ledgers. The limits themselves are tested where they are set low (tests/functional/test_caller_limits.py).
SHARED_SERVER_LIMITS = {
    "RATE_LIMIT_CALLS": "1000000",
    "QUOTA_LIVE_GAMES": "1000",
    "QUOTA_LIVE_FORMS": "1000",
    "QUOTA_WAITING_CALLS": "1000",
}
for _name, _value in SHARED_SERVER_LIMITS.items():
    os.environ.setdefault(_name, _value)


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
    """State in the in-memory store (contract-tested against the DynamoDB adapter): every call's rate limit is
    counted there. Tests of the DynamoDB path build their core on moto."""
    return build_core(settings, store=InMemoryDocumentStore())


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    report = getattr(node, "workeroutput", {}).get("fuzz_tally")
    if report:
        TALLY.merge(report)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """How many fuzz cases ran, and how long they took (tests/fuzz), in this process or summed over the workers."""
    if TALLY.cases and not hasattr(terminalreporter.config, "workerinput"):
        terminalreporter.section("fuzz")
        for line in TALLY.summary():
            terminalreporter.write_line(line)
