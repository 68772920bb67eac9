"""Resource subscriptions for MCP 2025-11-25 clients (RESUMABLE_STREAMS, an app with a subscribable resource):
a session subscribes, a tool says the resource changed, and the session's polled standalone stream tells it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import ResourceUpdatedNotification
from widget_mcp.storage.documents import Document
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.transport import subscriptions
from widget_mcp.transport.replies import HttpReply
from widget_mcp.transport.subscriptions import DELIVERY_LAG_MS, MAX_SUBSCRIPTIONS_PER_CALLER

from tests.functional.test_resumable_streams import HOST, Clock, Wire, events, messages
from tests.trip_book import served_trips, trip_endpoint, trip_settings

OSLO = "trip://departures/Oslo"
# The attack: 200 subscribes (once a resource's whole day) from one session, or from as many callers.
MANY = 200


class WriteCountingStore(InMemoryDocumentStore):
    """The in-memory store, counting the writes that land."""

    writes = 0

    def create(self, owner: str, doc: Document, *, quota: int | None = None) -> None:
        super().create(owner, doc, quota=quota)
        self.writes += 1

    def replace(self, owner: str, doc: Document, expected_version: int) -> None:
        super().replace(owner, doc, expected_version)
        self.writes += 1

    def hit(self, counter: str, window: str, limit: int, expires_at: int) -> bool:
        counted = super().hit(counter, window, limit, expires_at)
        self.writes += counted
        return counted


class Listener(Wire):
    async def request(self, session: str | None, method: str, params: dict[str, Any]) -> dict[str, Any]:
        reply = await self.post({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, session)
        body: dict[str, Any] = json.loads(reply.body)
        return body

    async def subscribe(self, session: str | None, uri: str = OSLO, user: str | None = None) -> dict[str, Any]:
        """`user`: the caller the host names (`openai/subject`); none: a caller without identity."""
        meta = {"_meta": {"openai/subject": user}} if user else {}
        return await self.request(session, "resources/subscribe", {"uri": uri, **meta})

    async def delay(self, city: str = "Oslo", minutes: int = 5) -> None:
        params = {"name": "delay_trains", "arguments": {"city": city, "minutes": minutes}}
        result = await self.request(None, "tools/call", params)
        assert result["result"]["isError"] is False

    async def delay_and_wait(self, clock: Clock, city: str = "Oslo") -> None:
        """A change, and the time a change takes before a poll reports it."""
        await self.delay(city)
        clock.now += DELIVERY_LAG_MS / 1000

    async def listen(self, session: str, event_id: str | None = None) -> HttpReply:
        headers = {"host": HOST, "accept": "text/event-stream", "mcp-protocol-version": "2025-11-25"}
        headers |= {"mcp-session-id": session} | ({"last-event-id": event_id} if event_id else {})
        return await self.endpoint.handle("GET", headers, b"")


def updated(reply: HttpReply) -> list[str]:
    return [m["params"]["uri"] for m in messages(reply) if m.get("method") == "notifications/resources/updated"]


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def wire(clock: Clock) -> Listener:
    store = InMemoryDocumentStore(clock=clock)
    return Listener(trip_endpoint(trip_settings(resumable_streams=True), store=store, clock=clock))


@pytest.fixture
def base_url() -> Iterator[str]:
    with served_trips(trip_settings(resumable_streams=True)) as url:
        yield url


async def test_the_official_client_is_told_on_its_own_stream_that_a_resource_it_follows_changed(base_url: str) -> None:
    told = anyio.Event()
    uris: list[str] = []

    async def on_message(message: object) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            uris.append(message.params.uri)
            told.set()

    async with Client(f"{base_url}/mcp", mode="legacy", message_handler=on_message) as mcp:
        with pytest.warns(MCPDeprecationWarning, match="resources/subscribe"):
            await mcp.session.subscribe_resource(OSLO)
        await mcp.call_tool("delay_trains", {"city": "Oslo", "minutes": 3})
        with anyio.fail_after(25):  # the client polls its stream every 5 s, as the server says
            await told.wait()
    assert uris == [OSLO]


async def test_a_subscribed_session_hears_on_its_stream_that_a_tool_changed_the_resource(
    wire: Listener, clock: Clock
) -> None:
    session = await wire.session()
    assert (await wire.subscribe(session))["result"] == {}
    opened = await wire.listen(session)
    [priming] = events(opened)
    assert priming["data"] == ""
    assert priming["retry"] == "5000"
    await wire.delay_and_wait(clock)
    told = await wire.listen(session, priming["id"])
    assert updated(told) == [OSLO]
    assert updated(await wire.listen(session, events(told)[0]["id"])) == []  # told once


async def test_a_change_is_reported_once_it_is_older_than_the_delivery_lag_and_only_once(
    wire: Listener, clock: Clock
) -> None:
    session = await wire.session()
    await wire.subscribe(session)
    opened = await wire.listen(session)
    await wire.delay()
    too_soon = await wire.listen(session, events(opened)[0]["id"])
    assert updated(too_soon) == []
    clock.now += DELIVERY_LAG_MS / 1000
    told = await wire.listen(session, events(too_soon)[0]["id"])
    assert updated(told) == [OSLO]
    clock.now += 60
    assert updated(await wire.listen(session, events(told)[0]["id"])) == []


async def test_a_session_that_did_not_subscribe_or_unsubscribed_hears_nothing(wire: Listener, clock: Clock) -> None:
    idle, leaving = await wire.session(), await wire.session()
    await wire.subscribe(leaving)
    assert (await wire.request(leaving, "resources/unsubscribe", {"uri": OSLO}))["result"] == {}
    idle_stream, leaving_stream = await wire.listen(idle), await wire.listen(leaving)
    await wire.delay_and_wait(clock)
    assert updated(await wire.listen(idle, events(idle_stream)[0]["id"])) == []
    assert updated(await wire.listen(leaving, events(leaving_stream)[0]["id"])) == []


async def test_a_change_made_before_the_stream_opened_is_reported_when_it_opens(wire: Listener, clock: Clock) -> None:
    session = await wire.session()
    await wire.subscribe(session)
    await wire.delay_and_wait(clock)
    assert updated(await wire.listen(session)) == [OSLO]


async def test_subscribing_without_a_session_is_refused_with_what_to_do(wire: Listener) -> None:
    error = (await wire.subscribe(None))["error"]
    assert error["code"] == -32600
    assert "Mcp-Session-Id" in error["message"]


async def test_a_resource_no_tool_reports_changes_of_cannot_be_subscribed_to(wire: Listener) -> None:
    error = (await wire.subscribe(await wire.session(), "trip://nowhere"))["error"]
    assert error["code"] == -32602
    assert error["data"] == {"uri": "trip://nowhere"}


async def test_a_caller_follows_a_bounded_number_of_resources_however_many_sessions_it_opens(wire: Listener) -> None:
    first, second = await wire.session(), await wire.session()
    for number in range(MAX_SUBSCRIPTIONS_PER_CALLER):
        session = first if number % 2 else second
        assert "result" in await wire.subscribe(session, f"trip://departures/city{number}")
    assert "result" in await wire.subscribe(second, "trip://departures/city0")  # renewing takes no new place
    error = (await wire.subscribe(await wire.session(), "trip://departures/one-more"))["error"]
    assert error["code"] == -32602
    assert "wait for one to lapse" in error["message"]


async def test_unsubscribing_frees_no_place_until_the_day_it_was_kept_for_ends(wire: Listener, clock: Clock) -> None:
    session = await wire.session()
    for number in range(MAX_SUBSCRIPTIONS_PER_CALLER):
        await wire.subscribe(session, f"trip://departures/city{number}")
    await wire.request(session, "resources/unsubscribe", {"uri": "trip://departures/city0"})
    assert "error" in await wire.subscribe(session, "trip://departures/one-more")
    assert "result" in await wire.subscribe(session, "trip://departures/city0")  # its own place, again
    clock.now += 2 * 86_400 + 1
    assert "result" in await wire.subscribe(session, "trip://departures/one-more")


async def test_every_subscriber_of_a_resource_hears_of_one_change_and_more_may_still_subscribe(
    wire: Listener, clock: Clock
) -> None:
    sessions = [await wire.session() for _ in range(MANY)]
    for number, session in enumerate(sessions):
        assert "result" in await wire.subscribe(session, user=f"user-{number}")
    assert "result" in await wire.subscribe(await wire.session(), user="one-more")
    await wire.delay_and_wait(clock)
    told = [updated(await wire.listen(session)) for session in sessions]
    assert told == [[OSLO]] * MANY


async def test_one_sessions_stream_cannot_be_polled_with_another_session(wire: Listener) -> None:
    mine, theirs = await wire.session(), await wire.session()
    await wire.subscribe(mine)
    opened = await wire.listen(mine)
    assert (await wire.listen(theirs, events(opened)[0]["id"])).status == 405


async def test_a_get_without_a_session_is_still_405(wire: Listener) -> None:
    reply = await wire.endpoint.handle("GET", {"host": HOST, "accept": "text/event-stream"}, b"")
    assert reply.status == 405


async def test_subscriptions_are_advertised_only_where_they_are_served() -> None:
    async def subscribe_capability(resumable: bool) -> object:
        listener = Listener(trip_endpoint(trip_settings(resumable_streams=resumable)))
        reply = await listener.initialize()
        return json.loads(reply.body)["result"]["capabilities"]["resources"].get("subscribe")

    assert await subscribe_capability(True) is True
    assert await subscribe_capability(False) in (False, None)


async def test_a_subscription_lapses_after_a_day_unless_renewed(wire: Listener, clock: Clock) -> None:
    session = await wire.session()
    await wire.subscribe(session)
    clock.now += 86_400
    opened = await wire.listen(session)
    await wire.delay_and_wait(clock)
    assert updated(await wire.listen(session, events(opened)[0]["id"])) == []


async def test_a_uri_too_long_to_keep_is_refused_with_a_clear_error_and_nothing_is_kept(
    clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    store = InMemoryDocumentStore(clock=clock, max_item_bytes=8 * 1024)
    wire = Listener(trip_endpoint(trip_settings(resumable_streams=True), store=store, clock=clock))
    session = await wire.session()
    huge = "trip://departures/" + "x" * 10_000
    error = (await wire.subscribe(session, huge))["error"]
    assert error["code"] == -32602
    assert "too long" in error["message"]
    assert error["data"]["uri"] == huge[:200]
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
    for number in range(MAX_SUBSCRIPTIONS_PER_CALLER):  # it took no place
        assert "result" in await wire.subscribe(session, f"trip://departures/city{number}")


async def test_a_subscribe_refused_for_the_callers_bound_writes_nothing(clock: Clock) -> None:
    store = WriteCountingStore(clock=clock)
    wire = Listener(trip_endpoint(trip_settings(resumable_streams=True), store=store, clock=clock))
    full = await wire.session()
    for number in range(MAX_SUBSCRIPTIONS_PER_CALLER):
        await wire.subscribe(full, f"trip://departures/city{number}", user="full")
    written = store.writes
    for _ in range(5):
        assert "wait for one to lapse" in (await wire.subscribe(full, user="full"))["error"]["message"]
    assert store.writes == written
    assert "result" in await wire.subscribe(await wire.session(), user="other")


async def test_two_hundred_renewals_from_one_session_leave_every_other_caller_free_to_subscribe(
    wire: Listener, clock: Clock
) -> None:
    session = await wire.session()
    for _ in range(MANY):
        assert "result" in await wire.subscribe(session, user="renewer")
    others = [await wire.session() for _ in range(3)]
    for number, other in enumerate(others):
        assert "result" in await wire.subscribe(other, user=f"other-{number}")
    assert "result" in await wire.subscribe(await wire.session())  # a caller without identity, too
    await wire.delay_and_wait(clock)
    assert [updated(await wire.listen(s)) for s in [session, *others]] == [[OSLO]] * 4


async def test_new_sessions_of_one_caller_stop_at_its_own_bound_and_leave_the_resource_to_others(
    wire: Listener,
) -> None:
    for _ in range(MAX_SUBSCRIPTIONS_PER_CALLER):
        assert "result" in await wire.subscribe(await wire.session(), user="hoarder")
    refused = (await wire.subscribe(await wire.session(), user="hoarder"))["error"]
    assert "wait for one to lapse" in refused["message"]
    assert "result" in await wire.subscribe(await wire.session(), user="someone-else")


async def test_a_change_made_before_a_session_subscribed_is_not_reported_to_it(wire: Listener, clock: Clock) -> None:
    await wire.delay_and_wait(clock)
    session = await wire.session()
    await wire.subscribe(session)
    clock.now += 1
    assert updated(await wire.listen(session)) == []


async def test_a_resource_that_changes_all_the_time_is_still_reported_on_every_poll_and_once_per_poll(
    clock: Clock,
) -> None:
    changes = subscriptions.Subscriptions(InMemoryDocumentStore(clock=clock), clock)
    changes.subscribe("s1", OSLO, "caller")
    cursor, told = int(clock.now * 1000), []
    for step in range(1, 301):  # a change every 100 ms for 30 s, a poll every 5 s
        clock.now += 0.1
        changes.updated(OSLO)
        if step % 50 == 0:
            uris, cursor = changes.changes("s1", None, cursor)
            told.append(uris)
    assert told == [[OSLO]] * 6


async def test_a_change_is_reported_however_long_after_it_the_stream_is_polled(clock: Clock) -> None:
    changes = subscriptions.Subscriptions(InMemoryDocumentStore(clock=clock), clock)
    changes.subscribe("s1", OSLO, "caller")
    cursor = int(clock.now * 1000)
    clock.now += 1
    changes.updated(OSLO)
    for _ in range(40):  # then changes every 50 ms, past the stamps the item keeps
        clock.now += 0.05
        changes.updated(OSLO)
    clock.now += 600
    uris, cursor = changes.changes("s1", None, cursor)
    assert uris == [OSLO]
    assert changes.changes("s1", None, cursor)[0] == []
