"""Fuzzing: hypothesis profiles, the two targets (Lambda handler on moto, HTTP on loopback), and the case count.

FUZZ_PROFILE=ci (the default, run by `make test`) is seeded and short; FUZZ_PROFILE=long (`make fuzz`) explores
with fresh randomness and enough examples for more than 10,000 cases in all. The session summary prints how many
cases ran and how long they took (tests/conftest.py, summed over the workers).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from fuzz_support import TALLY
from fuzz_targets import HttpTarget, LambdaTarget, host_from_allowlist, seed
from hypothesis import HealthCheck, settings
from servers import serve
from widget_mcp.local.aws import SerializedMotoServer
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.storage.table import create_state_table
from widget_mcp.wiring import build_app, build_core

_COMMON: dict[str, Any] = {
    "deadline": None,
    "database": None,  # no example database written into the work tree
    "print_blob": True,
    "suppress_health_check": [
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
        # The function-scoped fixtures here (the target chosen, the tally) hold nothing an example could change.
        HealthCheck.function_scoped_fixture,
    ],
}
# Examples per test; there are 13 fuzz tests (counting both targets), so "long" runs well over 10,000 cases.
settings.register_profile("ci", max_examples=200, derandomize=True, **_COMMON)
settings.register_profile("long", max_examples=1_500, derandomize=False, **_COMMON)
PROFILE = os.environ.get("FUZZ_PROFILE", "ci")
settings.load_profile(PROFILE)
TALLY.profile = PROFILE

# The engine's budget is cut so a fuzzed engine game answers in milliseconds; its strength is not under test.
_FAST_ENGINE = {"CHESS_ENGINE_MAX_NODES": "200", "CHESS_ENGINE_MAX_SECONDS": "0.02"}


@pytest.fixture(scope="session")
def lambda_target() -> Iterator[LambdaTarget]:
    """`widget_mcp.handler.handler` with its table in a moto server on loopback, as the Lambda layer tests run it.

    The handler module is a singleton built from the environment at import; whichever test layer imports it first
    sets its settings, so the Host header and table name are read back from it rather than assumed.
    """
    server = SerializedMotoServer()
    server.start()
    with pytest.MonkeyPatch.context() as env:
        env.setenv("AWS_ENDPOINT_URL_DYNAMODB", server.url)
        env.setenv("AWS_ACCESS_KEY_ID", "test")
        env.setenv("AWS_SECRET_ACCESS_KEY", "test")
        if "AWS_DEFAULT_REGION" not in os.environ:
            env.setenv("AWS_DEFAULT_REGION", "eu-west-1")
        if "widget_mcp.handler" not in sys.modules:
            with pytest.MonkeyPatch.context() as engine:
                for name, value in _FAST_ENGINE.items():
                    engine.setenv(name, value)
                import widget_mcp.handler  # noqa: F401 - imported here, with the engine budget set
        from widget_mcp.handler import core, handler

        create_state_table(boto3.client("dynamodb"), core.settings.table_name)
        target = LambdaTarget(handler, host_from_allowlist(core.settings.allowed_hosts))
        seed(target)
        try:
            yield target
        finally:
            server.stop()


@pytest.fixture(scope="session")
def http_target() -> Iterator[HttpTarget]:
    """The local app (uvicorn, concurrent tool calls) over an in-memory store, on a loopback port."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("POWERTOOLS_METRICS_DISABLED", "true")
        core = build_core(
            Settings(
                allowed_hosts=("127.0.0.1:*", "localhost:*"),
                widget_base_url="https://d111111abcdef8.cloudfront.net/widgets",
                chess_engine_max_nodes=int(_FAST_ENGINE["CHESS_ENGINE_MAX_NODES"]),
                chess_engine_max_seconds=float(_FAST_ENGINE["CHESS_ENGINE_MAX_SECONDS"]),
            ),
            concurrent=True,
            store=InMemoryDocumentStore(),
        )
    with serve(build_app(core), log_level="critical") as url:
        target = HttpTarget(url, url.removeprefix("http://"))
        seed(target)
        try:
            yield target
        finally:
            target.close()


@pytest.fixture(params=["lambda", "http"])
def target(request: pytest.FixtureRequest) -> LambdaTarget | HttpTarget:
    """Each fuzz test runs against both entry points."""
    chosen: LambdaTarget | HttpTarget = request.getfixturevalue(f"{request.param}_target")
    return chosen


@pytest.fixture(autouse=True)
def _tally(request: pytest.FixtureRequest) -> Iterator[None]:
    TALLY.start(request.node.nodeid)
    started = time.perf_counter()
    yield
    TALLY.seconds += time.perf_counter() - started


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Under xdist, hand this worker's cases to the controller, which prints the summary (tests/conftest.py)."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None and TALLY.cases:
        workeroutput["fuzz_tally"] = TALLY.report()
