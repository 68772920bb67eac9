"""The client matrix: the MCP clients hosts run (client_specs.py), each in every protocol era it speaks, against
`make dev`'s server run as a user runs it. Nothing here skips: a client that is not installed fails, saying how to
install it (`make clients`, which `make test` runs first)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from client_driver import Driver, installed, running
from client_session import ClientSession
from client_specs import (
    ANSWERING_ERA_IDS,
    ANSWERING_ERAS,
    CLIENT_ERA_IDS,
    CLIENT_ERAS,
    EXTENSION_ERA_IDS,
    EXTENSION_ERAS,
    HANDSHAKE,
    REFERENCE,
    RESUMING_ERA_IDS,
    RESUMING_ERAS,
    STATELESS,
    ClientSpec,
)
from widget_mcp.local.process import local_server


@pytest.fixture(scope="session")
def mcp_url() -> Iterator[str]:
    with local_server("client-matrix-state") as server:
        yield f"{server.base}/mcp"


@pytest.fixture(scope="session")
def reference(mcp_url: str) -> Iterator[ClientSession]:
    """The official Python SDK's client (client_specs.REFERENCE) on the same server: what the agent frameworks'
    models should read is what it reads making the same calls."""
    with running(REFERENCE, mcp_url) as driver:
        yield ClientSession(driver, REFERENCE, HANDSHAKE)


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
    installed(spec)
    driver = drivers[spec, era]
    # The server knows what a client declared in 2026-07-28 (every request) and in 2025-11-25 (its session, kept
    # with resumable streams, on by default); an earlier era's client it cannot ask.
    yield ClientSession(driver, spec, era, known=era in (HANDSHAKE, STATELESS))
    driver.ask("close")


@pytest.fixture(scope="session")
def resumable_mcp_url() -> Iterator[str]:
    """The same server with RESUMABLE_STREAMS on (off by default): a 2025-11-25 client can answer a tool's input
    requests, on a stream the server ends and the client resumes."""
    with local_server("client-answers-state", settings={"RESUMABLE_STREAMS": "1"}) as server:
        yield f"{server.base}/mcp"


@pytest.fixture(scope="session")
def answering_drivers(resumable_mcp_url: str) -> Iterator[dict[tuple[ClientSpec, str], Driver]]:
    started = {(spec, era): Driver(spec, resumable_mcp_url) for spec, era in ANSWERING_ERAS if spec.needs.exists()}
    try:
        yield started
    finally:
        for driver in started.values():
            driver.stop()


def _answering(
    request: pytest.FixtureRequest, drivers: dict[tuple[ClientSpec, str], Driver]
) -> tuple[Driver, ClientSpec, str]:
    spec: ClientSpec
    spec, era = request.param
    installed(spec)
    return drivers[spec, era], spec, era


@pytest.fixture(scope="session", params=ANSWERING_ERAS, ids=ANSWERING_ERA_IDS)
def answering(
    request: pytest.FixtureRequest, answering_drivers: dict[tuple[ClientSpec, str], Driver]
) -> tuple[Driver, ClientSpec, str]:
    """A driver that can play a host answering input requests (ClientSpec.answers_input), in one era, connected
    by each test as the host it needs."""
    return _answering(request, answering_drivers)


@pytest.fixture(scope="session", params=EXTENSION_ERAS, ids=EXTENSION_ERA_IDS)
def declaring(
    request: pytest.FixtureRequest, answering_drivers: dict[tuple[ClientSpec, str], Driver]
) -> tuple[Driver, ClientSpec, str]:
    """The same, for the drivers that can also declare the MCP Apps extension."""
    return _answering(request, answering_drivers)


@pytest.fixture(scope="session", params=RESUMING_ERAS, ids=RESUMING_ERA_IDS)
def resuming(
    request: pytest.FixtureRequest, answering_drivers: dict[tuple[ClientSpec, str], Driver]
) -> tuple[Driver, ClientSpec, str]:
    """The same, in the handshake era alone: the questions come on the call's stream, which the client resumes."""
    return _answering(request, answering_drivers)


def _host(answering: tuple[Driver, ClientSpec, str], declares: tuple[str, ...]) -> Iterator[ClientSession]:
    driver, spec, era = answering
    yield ClientSession(driver, spec, era, declares)
    driver.ask("close")


@pytest.fixture
def form_host(answering: tuple[Driver, ClientSpec, str]) -> Iterator[ClientSession]:
    """A host that shows the server's forms as its own and no widget (it declares `elicitation`, not the MCP Apps
    extension): an IDE, a CLI."""
    yield from _host(answering, ("elicitation",))


@pytest.fixture
def resuming_form_host(resuming: tuple[Driver, ClientSpec, str]) -> Iterator[ClientSession]:
    """A host that shows the server's forms and no widget, in the era where it resumes the call's stream."""
    yield from _host(resuming, ("elicitation",))


@pytest.fixture
def widget_host(declaring: tuple[Driver, ClientSpec, str]) -> Iterator[ClientSession]:
    """A host that shows widgets and could show forms as its own too (it declares both)."""
    yield from _host(declaring, ("elicitation", "apps"))
