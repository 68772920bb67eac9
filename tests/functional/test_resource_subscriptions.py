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
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.transport import subscriptions
from widget_mcp.transport.replies import HttpReply
from widget_mcp.transport.subscriptions import (
    DELIVERY_LAG_MS,
    MAX_SUBSCRIBES_PER_DAY,
    MAX_SUBSCRIPTIONS_PER_CALLER,
)

from tests.functional.test_resumable_streams import HOST, Clock, Wire, events, messages
from tests.trip_book import served_trips, trip_endpoint, trip_settings

OSLO = "trip://departures/Oslo"


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


async def test_every_subscriber_a_resource_may_gain_in_a_day_hears_of_a_change_and_no_more_may_subscribe(
    wire: Listener, clock: Clock
) -> None:
    sessions = [await wire.session() for _ in range(MAX_SUBSCRIBES_PER_DAY)]
    for number, session in enumerate(sessions):
        assert "result" in await wire.subscribe(session, user=f"user-{number}")
    error = (await wire.subscribe(await wire.session(), user="one-more"))["error"]
    assert error["code"] == -32602
    assert "subscribe again tomorrow" in error["message"]
    await wire.delay_and_wait(clock)
    told = [updated(await wire.listen(session)) for session in sessions]
    assert told == [[OSLO]] * MAX_SUBSCRIBES_PER_DAY


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


async def test_a_caller_refused_for_its_own_bound_spends_none_of_a_resources_day(
    wire: Listener, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(subscriptions, "MAX_SUBSCRIBES_PER_DAY", 2)
    full = await wire.session()
    for number in range(MAX_SUBSCRIPTIONS_PER_CALLER):
        await wire.subscribe(full, f"trip://departures/city{number}", user="full")
    for _ in range(5):
        assert "wait for one to lapse" in (await wire.subscribe(full, user="full"))["error"]["message"]
    first, second, third = await wire.session(), await wire.session(), await wire.session()
    assert "result" in await wire.subscribe(first, user="first")
    assert "result" in await wire.subscribe(second, user="second")
    assert "subscribe again tomorrow" in (await wire.subscribe(third, user="third"))["error"]["message"]


async def test_renewals_count_against_a_resources_day_so_its_live_subscribers_stay_bounded(
    wire: Listener, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(subscriptions, "MAX_SUBSCRIBES_PER_DAY", 2)
    session = await wire.session()
    assert "result" in await wire.subscribe(session)
    assert "result" in await wire.subscribe(session)  # renewed
    assert "subscribe again tomorrow" in (await wire.subscribe(await wire.session(), user="other"))["error"]["message"]
