"""The requestState key (REQUEST_STATE_SECRET_ARN) in AWS: never read while a SnapStart snapshot is primed, and read
again every few minutes, so a rotation reaches warm instances, with the key it replaced accepted for a bounded grace.

Real boto3 calls against moto in process; reads are counted where boto3 makes them (its before-call event), so
whatever path reads a secret is seen.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws
from widget_mcp.key_ring import REFRESH_SECONDS
from widget_mcp.server import request_state_key
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit.request_state import InvalidRequestState, RequestStates
from widget_mcp.transport.lambda_events import parse_event, to_response
from widget_mcp.transport.replies import HttpReply
from widget_mcp.transport.resumption import ListenEvent, Streams
from widget_mcp.wiring import build_core, prepare_snapshot

REGION = "eu-west-1"
HOST = "mcp.example.com"
FIRST = "the-first-request-state-key-of-32-characters-or-more"
SECOND = "the-second-request-state-key-of-32-characters-or-more"
TTL = 900


class Clock:
    def __init__(self, now: float = 1_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class SecretReads:
    """Every read of a Secrets Manager secret or SSM parameter boto3 makes in this process."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, model: Any, **kwargs: Any) -> None:
        if model.name in ("GetSecretValue", "GetParameter", "GetParameters"):
            self.calls.append(model.name)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[SecretReads]:
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_SECRETS_MANAGER", "AWS_ENDPOINT_URL_SSM", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    counted = SecretReads()
    with mock_aws():
        boto3.setup_default_session(region_name=REGION)
        assert boto3.DEFAULT_SESSION is not None
        for service in ("secrets-manager", "ssm"):
            boto3.DEFAULT_SESSION.events.register(f"before-call.{service}", counted)
        yield counted
    boto3.DEFAULT_SESSION = None


def new_secret(name: str, value: str) -> str:
    arn: str = boto3.client("secretsmanager").create_secret(Name=name, SecretString=value)["ARN"]
    return arn


def rotate(arn: str, value: str) -> None:
    boto3.client("secretsmanager").put_secret_value(SecretId=arn, SecretString=value)


def test_priming_a_snapshot_with_resumable_streams_on_reads_no_secret_and_issues_no_session(
    reads: SecretReads,
) -> None:
    settings = Settings(
        allowed_hosts=(HOST,),
        table_name="unused",
        resumable_streams=True,
        request_state_secret_arn=new_secret("widget-mcp/request-state", FIRST),
        host_token_secret_arn=new_secret("widget-mcp/host-token", SECOND),
    )
    core = build_core(settings, store=InMemoryDocumentStore())
    assert core.endpoint._streams is not None  # resumable streams are on: a 2025-11-25 initialize gets a session
    loop = asyncio.new_event_loop()
    answered: list[tuple[str, dict[str, Any]]] = []

    def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
        """The Lambda handler's path for `/mcp` (handler.py), keeping each reply."""
        request = parse_event(event)
        if request.path != "/mcp":
            return {"statusCode": 404}
        reply = core.endpoint.begin(request.method, request.headers, request.body, request.request_id)
        if not isinstance(reply, HttpReply):
            reply = loop.run_until_complete(reply)
        response = to_response(reply, request.version)
        answered.append((json.loads(request.body)["method"], response))
        return response

    try:
        prepare_snapshot(core, handle)
        assert dict(answered)["initialize"]["statusCode"] == 200  # answered, and without a session
        assert {response["statusCode"] for _, response in answered} <= {200, 404}  # as priming expects
        assert [r for _, r in answered if "mcp-session-id" in {k.lower() for k in r.get("headers", {})}] == []
        assert reads.calls == []

        # After the restore, the first 2025-11-25 initialize reads the key and gets its session.
        init = {
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "c", "version": "1"},
        }
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}).encode()
        headers = {"host": HOST, "content-type": "application/json", "accept": "application/json"}
        reply = loop.run_until_complete(core.endpoint.handle("POST", headers, body))
        assert "mcp-session-id" in dict(reply.headers)
        assert reads.calls == ["GetSecretValue"]
    finally:
        loop.close()


def key_in_aws(reads: SecretReads, clock: Clock) -> tuple[str, RequestStates]:
    arn = new_secret("widget-mcp/request-state", FIRST)
    settings = Settings(allowed_hosts=(HOST,), table_name="unused", request_state_secret_arn=arn)
    # The states' own expiry is held still (`clock` is the key's alone), so what refuses a state here is its key.
    states = RequestStates(request_state_key(settings, clock=clock), settings.request_state_ttl_seconds, lambda: 0.0)
    return arn, states


def opens(states: RequestStates, state: str) -> bool:
    try:
        states.open(state, "book_trip", {"city": "Oslo"}, "openai:alice")
    except InvalidRequestState as refused:
        return refused.reason != "tampered"  # any other refusal is a failed check here
    return True


def seal(states: RequestStates) -> str:
    return states.seal("book_trip", {"city": "Oslo"}, "openai:alice", {"name": "Ada"})


def test_a_rotated_request_state_key_signs_after_the_refresh_time_and_the_old_one_verifies_for_the_grace_only(
    reads: SecretReads,
) -> None:
    clock = Clock()
    arn, states = key_in_aws(reads, clock)
    old = seal(states)
    assert len(reads.calls) == 1

    rotate(arn, SECOND)
    clock.now += REFRESH_SECONDS - 1
    assert opens(RequestStates(lambda: FIRST.encode(), TTL, lambda: 0.0), seal(states))  # not read again yet
    assert len(reads.calls) == 1

    clock.now += 1
    new = seal(states)
    assert len(reads.calls) == 2
    assert opens(RequestStates(lambda: SECOND.encode(), TTL, lambda: 0.0), new)  # signed with the new key
    assert (opens(states, new), opens(states, old)) == (True, True)  # the old one in its grace

    # The grace: every state signed with the old key, on any instance, has expired by its end.
    grace = REFRESH_SECONDS + TTL
    clock.now += grace - 1
    assert (opens(states, new), opens(states, old)) == (True, True)
    clock.now += 1
    assert (opens(states, new), opens(states, old)) == (True, False)


def test_sessions_and_event_ids_follow_the_rotated_request_state_key_with_the_same_grace(reads: SecretReads) -> None:
    clock = Clock()
    arn, states = key_in_aws(reads, clock)
    streams = Streams(InMemoryDocumentStore(), states, ttl_seconds=TTL, work_seconds=20)
    old_session = streams.issue_session({"elicitation": {}})
    old_event = streams.listen_priming(ListenEvent("nonce", 0)).decode().split("\n")[0].removeprefix("id: ")

    rotate(arn, SECOND)
    clock.now += REFRESH_SECONDS
    new_session = streams.issue_session({"sampling": {}})
    assert new_session != old_session
    new_key = RequestStates(lambda: SECOND.encode(), TTL)
    on_the_new_key = Streams(InMemoryDocumentStore(), new_key, ttl_seconds=TTL, work_seconds=20)
    assert on_the_new_key.session(new_session) is not None
    assert on_the_new_key.session(old_session) is None
    assert streams.session(old_session) is not None
    assert streams.listening(old_event) is not None

    clock.now += REFRESH_SECONDS + TTL
    assert (streams.session(new_session) is not None, streams.session(old_session)) == (True, None)
    assert streams.listening(old_event) is None
