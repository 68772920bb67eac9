"""Resumable streams with sign-in on (AUTH_MODE=oauth) or host tokens: a kept call is its caller's. Another user, or
no one, holding the same session (and the ids its stream carried) can neither answer it, nor resume it, nor end it,
nor read its response; and a caller whose token expired is challenged before the call is touched, so it resumes as
soon as the client has a new token."""

from __future__ import annotations

import json
from typing import Any

import pytest
from auth_challenges import parse_bearer_challenge
from widget_mcp.auth.gate import SignInGate, SignInPolicy
from widget_mcp.auth.host_tokens import HEADER, HostTokens, sign
from widget_mcp.auth.tokens import AccessToken, TokenRejected
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.transport.endpoint import McpEndpoint
from widget_mcp.transport.host_identity import HostIdentity
from widget_mcp.transport.replies import HttpReply

from tests.functional.test_resumable_streams import HEADERS, HOST, TRAVELLER, Clock, Runs, events, messages
from tests.trip_book import trip_endpoint, trip_settings

MALLORY = {"action": "accept", "content": {"name": "Mallory", "seats": 9}}
BOOKED_FOR_ADA = {"city": "Oslo", "traveller": "Ada", "seats": 2, "note": None}
HOST_SECRET = "a-host-secret-of-at-least-32-characters"
DEPARTURES = "trip://departures/Oslo"


class Tokens:
    """An issuer's verifier: `<user>` is that user's valid token, anything else has expired."""

    def verify(self, token: str) -> AccessToken:
        if token not in ("alice", "bob"):
            raise TokenRejected("the token has expired")
        return AccessToken(subject=token, scopes=frozenset({"trips"}))


class Caller:
    """One client's requests by hand, each with the credential headers it is given."""

    def __init__(self, endpoint: McpEndpoint) -> None:
        self.endpoint = endpoint

    async def post(self, message: dict[str, Any], session: str | None, **credentials: str) -> HttpReply:
        headers = {**HEADERS, **credentials, **({"mcp-session-id": session} if session else {})}
        return await self.endpoint.handle("POST", headers, json.dumps(message).encode())

    async def session(self) -> str:
        params = {
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "x", "version": "1"},
        }
        reply = await self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}, None)
        return dict(reply.headers)["mcp-session-id"]

    async def call(self, session: str, **credentials: str) -> tuple[str, str]:
        """book_trip, suspended: its priming event id and its request's id."""
        params = {"name": "book_trip", "arguments": {"city": "Oslo"}}
        reply = await self.post(
            {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}, session, **credentials
        )
        [request] = messages(reply)
        return events(reply)[0]["id"], request["id"]

    async def answer(self, session: str, request_id: str, result: dict[str, Any], **credentials: str) -> HttpReply:
        return await self.post({"jsonrpc": "2.0", "id": request_id, "result": result}, session, **credentials)

    async def resume(self, session: str, event_id: str, **credentials: str) -> HttpReply:
        headers = {"host": HOST, "accept": "text/event-stream", "mcp-protocol-version": "2025-11-25"}
        headers |= {"last-event-id": event_id, "mcp-session-id": session, **credentials}
        return await self.endpoint.handle("GET", headers, b"")


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def host_user(user: str) -> dict[str, str]:
    return {HEADER: sign(HOST_SECRET, "openwebui", user, "call", 600)}


@pytest.fixture
def runs() -> Runs:
    return Runs()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def signed_in(runs: Runs, clock: Clock) -> Caller:
    """book_trip needs sign-in (scope `trips`)."""
    policy = SignInPolicy(protected={"book_trip": ("trips",)}, scopes_supported=("trips",), authorization_servers=())
    settings = trip_settings(resumable_streams=True)
    store = InMemoryDocumentStore(clock=clock)
    gate = SignInGate(policy, Tokens())
    return Caller(trip_endpoint(settings, store=store, observer=runs, clock=clock, gate=gate))


@pytest.fixture
def host_tokens(runs: Runs) -> Caller:
    identity = HostIdentity(HostTokens(HOST_SECRET), lambda _name: False)
    return Caller(trip_endpoint(trip_settings(resumable_streams=True), observer=runs, host_identity=identity))


def booking(reply: HttpReply) -> dict[str, Any]:
    [response] = messages(reply)
    assert response["id"] == 7, response
    structured: dict[str, Any] = response["result"]["structuredContent"]
    return structured


async def test_an_answer_from_another_signed_in_user_or_from_no_one_in_the_same_session_is_dropped(
    signed_in: Caller,
) -> None:
    session = await signed_in.session()
    event_id, request_id = await signed_in.call(session, **bearer("alice"))
    assert (await signed_in.answer(session, request_id, MALLORY, **bearer("bob"))).status == 202
    assert (await signed_in.answer(session, request_id, MALLORY)).status == 202
    assert messages(await signed_in.resume(session, event_id, **bearer("alice"))) == []  # still waiting
    await signed_in.answer(session, request_id, TRAVELLER, **bearer("alice"))
    assert booking(await signed_in.resume(session, event_id, **bearer("alice"))) == BOOKED_FOR_ADA


async def test_an_answer_with_an_expired_token_is_challenged_and_not_kept(signed_in: Caller) -> None:
    session = await signed_in.session()
    event_id, request_id = await signed_in.call(session, **bearer("alice"))
    refused = await signed_in.answer(session, request_id, MALLORY, **bearer("stale"))
    assert refused.status == 401
    assert parse_bearer_challenge(dict(refused.headers)["www-authenticate"])["error"] == "invalid_token"
    assert messages(await signed_in.resume(session, event_id, **bearer("alice"))) == []


async def test_another_signed_in_user_can_neither_resume_nor_end_a_users_call(signed_in: Caller, runs: Runs) -> None:
    session = await signed_in.session()
    event_id, request_id = await signed_in.call(session, **bearer("alice"))
    await signed_in.answer(session, request_id, TRAVELLER, **bearer("alice"))
    [refused] = messages(await signed_in.resume(session, event_id, **bearer("bob")))
    assert refused["error"]["code"] == -32600
    assert "call the tool again" in refused["error"]["message"]
    assert booking(await signed_in.resume(session, event_id, **bearer("alice"))) == BOOKED_FOR_ADA
    assert runs.count == 2  # the call that asked, and alice's resumption: bob's ran nothing


async def test_another_signed_in_user_cannot_read_a_finished_calls_response(signed_in: Caller) -> None:
    session = await signed_in.session()
    event_id, request_id = await signed_in.call(session, **bearer("alice"))
    await signed_in.answer(session, request_id, TRAVELLER, **bearer("alice"))
    finished = await signed_in.resume(session, event_id, **bearer("alice"))
    assert booking(finished) == BOOKED_FOR_ADA
    for stranger in (bearer("bob"), {}):
        assert "Ada" not in (await signed_in.resume(session, event_id, **stranger)).body.decode()


@pytest.mark.parametrize("credentials", [bearer("stale"), {}], ids=["expired", "none"])
async def test_a_resumption_without_a_valid_token_is_challenged_and_the_call_resumes_once_signed_in_again(
    signed_in: Caller, runs: Runs, credentials: dict[str, str]
) -> None:
    session = await signed_in.session()
    event_id, request_id = await signed_in.call(session, **bearer("alice"))
    await signed_in.answer(session, request_id, TRAVELLER, **bearer("alice"))
    refused = await signed_in.resume(session, event_id, **credentials)
    assert refused.status == 401
    parse_bearer_challenge(dict(refused.headers)["www-authenticate"])
    assert booking(await signed_in.resume(session, event_id, **bearer("alice"))) == BOOKED_FOR_ADA
    assert runs.count == 2


async def test_a_host_users_kept_call_is_theirs_alone(host_tokens: Caller, runs: Runs) -> None:
    session = await host_tokens.session()
    event_id, request_id = await host_tokens.call(session, **host_user("ada"))
    assert (await host_tokens.answer(session, request_id, MALLORY, **host_user("mallory"))).status == 202
    assert (await host_tokens.answer(session, request_id, MALLORY)).status == 202
    await host_tokens.answer(session, request_id, TRAVELLER, **host_user("ada"))
    for stranger in (host_user("mallory"), {}):
        [refused] = messages(await host_tokens.resume(session, event_id, **stranger))
        assert refused["error"]["code"] == -32600
    assert booking(await host_tokens.resume(session, event_id, **host_user("ada"))) == BOOKED_FOR_ADA
    assert runs.count == 2


async def listen(caller: Caller, session: str, event_id: str | None = None, **credentials: str) -> HttpReply:
    headers = {"host": HOST, "accept": "text/event-stream", "mcp-protocol-version": "2025-11-25"}
    headers |= {"mcp-session-id": session, **credentials} | ({"last-event-id": event_id} if event_id else {})
    return await caller.endpoint.handle("GET", headers, b"")


async def test_a_sessions_resource_changes_reach_only_the_signed_in_user_who_subscribed(
    signed_in: Caller, clock: Clock
) -> None:
    session = await signed_in.session()
    subscribe = {"jsonrpc": "2.0", "id": 3, "method": "resources/subscribe", "params": {"uri": DEPARTURES}}
    assert "result" in json.loads((await signed_in.post(subscribe, session, **bearer("alice"))).body)
    change = {"name": "delay_trains", "arguments": {"city": "Oslo", "minutes": 4}}
    await signed_in.post({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": change}, None)
    clock.now += 3
    refused = await listen(signed_in, session, **bearer("stale"))
    assert refused.status == 401
    assert messages(await listen(signed_in, session, **bearer("bob"))) == []
    [told] = messages(await listen(signed_in, session, **bearer("alice")))
    assert told == {"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": DEPARTURES}}
