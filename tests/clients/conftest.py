"""The client matrix: the MCP clients hosts run (client_specs.py), each in every protocol era it speaks, against
`make dev`'s server run as a user runs it. Nothing here skips: a client that is not installed fails, saying how to
install it (`make clients`, which `make test` runs first)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from client_driver import Driver
from client_session import ClientSession
from client_specs import CLIENT_ERA_IDS, CLIENT_ERAS, ClientSpec
from widget_mcp.local.process import local_server


@pytest.fixture(scope="session")
def mcp_url() -> Iterator[str]:
    with local_server("client-matrix-state") as server:
        yield f"{server.base}/mcp"


@pytest.fixture(scope="session")
def drivers(mcp_url: str) -> Iterator[dict[tuple[ClientSpec, str], Driver]]:
    """A driver process per installed (client, era), all started at once: their interpreters load the client
    libraries while the first ones run."""
    started = {(spec, era): Driver(spec, mcp_url) for spec, era in CLIENT_ERAS if spec.needs.exists()}
    try:
        yield started
    finally:
        for driver in started.values():
            driver.stop()


# Session-scoped and parametrized: pytest runs every test of one (client, era) before the next, so one connection
# lives at a time, and a client that cannot connect fails once, for all its tests.
@pytest.fixture(scope="session", params=CLIENT_ERAS, ids=CLIENT_ERA_IDS)
def client(request: pytest.FixtureRequest, drivers: dict[tuple[ClientSpec, str], Driver]) -> Iterator[ClientSession]:
    spec: ClientSpec
    spec, era = request.param
    if not spec.needs.exists():
        pytest.fail(f"{spec.name} is not installed ({spec.needs} is missing): run `make clients`", pytrace=False)
    driver = drivers[spec, era]
    yield ClientSession(driver, spec, era)
    driver.ask("close")
