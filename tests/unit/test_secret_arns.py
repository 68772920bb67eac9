"""HOST_TOKEN_SECRET_ARN and REQUEST_STATE_SECRET_ARN: the keys a deployment keeps in Secrets Manager or SSM, read
with real boto3 calls (moto in process) when first needed, never when the server is built, and kept once read."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws
from widget_mcp.auth.host_tokens import HEADER, PREVIOUS_GRACE_SECONDS, HostTokenRejected, HostTokens, sign
from widget_mcp.key_ring import REFRESH_SECONDS, RETRY_SECONDS
from widget_mcp.secrets import SecretUnavailable, read_secret, secret_source
from widget_mcp.server import build_runtime
from widget_mcp.settings import Settings, SettingsError, load_settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit import CallerClient
from widget_mcp.toolkit.request_state import InvalidRequestState
from widget_mcp.transport.endpoint import McpEndpoint
from widget_mcp.wiring import build_core

from tests.trip_book import book, trip_endpoint, trip_settings

HOST = "mcp.example.com"
REGION = "eu-west-1"
ACCOUNT = "123456789012"  # moto's account
FIRST = "the-first-shared-secret-of-32-characters-or-more"
SECOND = "the-second-shared-secret-of-32-characters-or-more"
MODERN = CallerClient("2026-07-28", True, {"elicitation": {}})
HEADERS = {"host": HOST, "content-type": "application/json", "accept": "application/json"}


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Moto in this process; boto3 reaches it only through its default endpoints, so no test's moto server URL."""
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_SECRETS_MANAGER", "AWS_ENDPOINT_URL_SSM", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    with mock_aws():
        yield


def secrets_manager(region: str = REGION) -> Any:
    return boto3.client("secretsmanager", region_name=region)


def ssm(region: str = REGION) -> Any:
    return boto3.client("ssm", region_name=region)


def parameter_arn(name: str) -> str:
    return f"arn:aws:ssm:{REGION}:{ACCOUNT}:parameter/{name}"


def endpoint_with(**settings: Any) -> McpEndpoint:
    config = Settings(allowed_hosts=(HOST,), table_name="unused", **settings)
    return build_core(config, store=InMemoryDocumentStore()).endpoint


async def new_game(endpoint: McpEndpoint, secret: str) -> tuple[int, dict[str, Any]]:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "chess_new_game"}})
    token = sign(secret, "openwebui", "alice", "call", 600)
    reply = await endpoint.handle("POST", {**HEADERS, HEADER: token}, body.encode())
    return reply.status, json.loads(reply.body)


@pytest.mark.usefixtures("aws")
def test_a_secrets_manager_secret_is_read_by_its_arn_in_the_arns_own_region() -> None:
    arn = secrets_manager("us-west-2").create_secret(Name="widget-mcp/host-token", SecretString=FIRST)["ARN"]
    assert read_secret(arn) == FIRST  # the process's region is eu-west-1


@pytest.mark.usefixtures("aws")
def test_an_ssm_secure_string_is_read_decrypted_by_its_arn() -> None:
    ssm().put_parameter(Name="/widget-mcp/request-state", Value=FIRST, Type="SecureString")
    assert read_secret(parameter_arn("widget-mcp/request-state")) == FIRST


@pytest.mark.usefixtures("aws")
@pytest.mark.parametrize(
    ("stored", "problem"), [(None, "could not be read"), ("too-short", "must hold at least 32 characters")]
)
def test_a_missing_or_short_secret_is_refused_with_a_sentence_naming_its_arn(stored: str | None, problem: str) -> None:
    if stored is not None:
        ssm().put_parameter(Name="/short", Value=stored, Type="SecureString")
    arn = parameter_arn("short" if stored is not None else "missing")
    with pytest.raises(SecretUnavailable, match=problem) as refused:
        read_secret(arn)
    assert refused.value.arn == arn
    assert str(refused.value).startswith(f"secret {arn}: ")


@pytest.mark.usefixtures("aws")
async def test_host_tokens_are_checked_with_the_arns_secret_read_when_the_first_token_arrives_then_kept() -> None:
    arn = secrets_manager().create_secret(Name="widget-mcp/host-token", SecretString=FIRST)["ARN"]
    endpoint = endpoint_with(host_token_secret_arn=arn)
    # Changed after the server was built and before any token: the server must not have read it yet.
    secrets_manager().put_secret_value(SecretId=arn, SecretString=SECOND)

    status, answer = await new_game(endpoint, SECOND)
    assert status == 200, answer
    assert answer["result"]["structuredContent"]["status"] == "active"
    status, answer = await new_game(endpoint, FIRST)
    assert status == 401
    assert "signature does not verify" in answer["error"]["message"]

    # Kept once read: a change right after reaches this instance only at its next read (REFRESH_SECONDS).
    secrets_manager().put_secret_value(SecretId=arn, SecretString=FIRST)
    assert (await new_game(endpoint, SECOND))[0] == 200


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def verifies(tokens: HostTokens, secret: str) -> bool:
    try:
        tokens.verify(sign(secret, "openwebui", "alice", "call", 600))
    except HostTokenRejected:
        return False
    return True


@pytest.mark.usefixtures("aws")
def test_a_rotated_host_token_secret_is_read_again_after_the_refresh_time_and_the_old_value_verifies_for_a_grace(
    caplog: pytest.LogCaptureFixture,
) -> None:
    arn = secrets_manager().create_secret(Name="widget-mcp/host-token", SecretString=FIRST)["ARN"]
    clock = Clock()
    source = secret_source(None, arn)
    assert source is not None
    tokens = HostTokens(source, clock=clock)
    assert verifies(tokens, FIRST)

    secrets_manager().put_secret_value(SecretId=arn, SecretString=SECOND)  # the rotation, by hand
    clock.now += REFRESH_SECONDS - 1
    assert (verifies(tokens, FIRST), verifies(tokens, SECOND)) == (True, False)  # not read again yet

    clock.now += 1
    assert (verifies(tokens, SECOND), verifies(tokens, FIRST)) == (True, True)  # read again; the old one in grace

    clock.now += PREVIOUS_GRACE_SECONDS - 1
    assert verifies(tokens, FIRST)
    clock.now += 1
    assert (verifies(tokens, SECOND), verifies(tokens, FIRST)) == (True, False)


@pytest.mark.usefixtures("aws")
def test_a_host_token_secret_that_cannot_be_read_again_keeps_the_value_read_before_and_is_tried_again_soon(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ssm().put_parameter(Name="/widget-mcp/host-token", Value=FIRST, Type="SecureString")
    arn = parameter_arn("widget-mcp/host-token")
    clock = Clock()
    source = secret_source(None, arn)
    assert source is not None
    tokens = HostTokens(source, clock=clock)
    assert verifies(tokens, FIRST)

    ssm().delete_parameter(Name="/widget-mcp/host-token")
    clock.now += REFRESH_SECONDS
    assert verifies(tokens, FIRST)
    assert any("not re-read" in r.getMessage() and arn in r.getMessage() for r in caplog.records)

    ssm().put_parameter(Name="/widget-mcp/host-token", Value=SECOND, Type="SecureString")
    clock.now += RETRY_SECONDS - 1
    assert not verifies(tokens, SECOND)  # the next try waits RETRY_SECONDS, not a read per token
    clock.now += 1
    assert (verifies(tokens, SECOND), verifies(tokens, FIRST)) == (True, True)


@pytest.mark.usefixtures("aws")
def test_a_replaced_host_token_secret_is_refused_an_hour_past_the_refresh_time_after_rotation_if_unused() -> None:
    arn = secrets_manager().create_secret(Name="widget-mcp/host-token", SecretString=FIRST)["ARN"]
    clock = Clock()
    source = secret_source(None, arn)
    assert source is not None
    tokens = HostTokens(source, clock=clock)
    assert verifies(tokens, FIRST)

    # Rotated right after that read (a leak); this instance verifies no host token for two hours.
    secrets_manager().put_secret_value(SecretId=arn, SecretString=SECOND)
    clock.now += 2 * 3600
    # Its next read sees the change, but the old value's hour counts from when it could first have been seen.
    assert (verifies(tokens, FIRST), verifies(tokens, SECOND)) == (False, True)


@pytest.mark.usefixtures("aws")
def test_an_unreadable_host_token_secret_keeps_the_value_read_before_an_hour_past_the_refresh_time_then_503() -> None:
    ssm().put_parameter(Name="/widget-mcp/host-token", Value=FIRST, Type="SecureString")
    arn = parameter_arn("widget-mcp/host-token")
    clock = Clock()
    source = secret_source(None, arn)
    assert source is not None
    tokens = HostTokens(source, clock=clock)
    assert verifies(tokens, FIRST)

    # Deleted (or the role's access removed) to revoke it: kept no longer than a replaced value would verify.
    ssm().delete_parameter(Name="/widget-mcp/host-token")
    clock.now += REFRESH_SECONDS + PREVIOUS_GRACE_SECONDS - 1
    assert verifies(tokens, FIRST)
    clock.now += 1
    with pytest.raises(SecretUnavailable):
        verifies(tokens, FIRST)
    with pytest.raises(SecretUnavailable):  # each token reads again, as before a first read
        verifies(tokens, FIRST)

    ssm().put_parameter(Name="/widget-mcp/host-token", Value=SECOND, Type="SecureString")
    assert (verifies(tokens, SECOND), verifies(tokens, FIRST)) == (True, False)


@pytest.mark.usefixtures("aws")
async def test_an_unreadable_host_token_secret_answers_503_and_is_read_again_for_the_next_token() -> None:
    arn = parameter_arn("widget-mcp/host-token")
    endpoint = endpoint_with(host_token_secret_arn=arn)  # the parameter does not exist yet: built all the same

    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "chess_new_game"}})
    reply = await endpoint.handle(
        "POST", {**HEADERS, HEADER: sign(FIRST, "openwebui", "alice", "call", 600)}, body.encode()
    )
    answer = json.loads(reply.body)
    assert (reply.status, dict(reply.headers)["retry-after"]) == (503, "1")
    assert answer["error"]["message"] == (
        "Host tokens cannot be checked right now: the server could not read its secret; try again shortly"
    )
    assert arn not in json.dumps(answer)  # where the secret lives is the operator's business (it is logged)

    ssm().put_parameter(Name="/widget-mcp/host-token", Value=FIRST, Type="SecureString")
    assert (await new_game(endpoint, FIRST))[0] == 200


@pytest.mark.usefixtures("aws")
async def test_a_sandboxed_widgets_preflight_is_answered_without_reading_the_secret() -> None:
    endpoint = endpoint_with(host_token_secret_arn=parameter_arn("not-there"))  # reading it would fail
    preflight = {"origin": "null", "access-control-request-method": "POST", "access-control-request-headers": HEADER}
    reply = await endpoint.handle("OPTIONS", {"host": HOST, **preflight}, b"")
    assert reply.status == 204
    assert dict(reply.headers)["access-control-allow-origin"] == "null"


@pytest.mark.usefixtures("aws")
async def test_an_input_request_started_on_one_instance_resumes_on_another_with_the_arns_key() -> None:
    arn = secrets_manager().create_secret(Name="widget-mcp/request-state", SecretString=FIRST)["ARN"]
    one, other = (
        build_runtime(trip_settings(request_state_secret=None, request_state_secret_arn=arn), [book]) for _ in "12"
    )
    first = await one.call("book_trip", {"city": "Oslo"}, None, client=MODERN)
    [key] = first["inputRequests"]
    answer = {key: {"action": "accept", "content": {"name": "Ada", "seats": 2}}}

    done = await other.call(
        "book_trip", {"city": "Oslo"}, None, client=MODERN, input_responses=answer, request_state=first["requestState"]
    )

    assert done["structuredContent"] == {"city": "Oslo", "traveller": "Ada", "seats": 2, "note": None}
    without_key = build_runtime(trip_settings(request_state_secret=None), [book])  # a key of its own
    with pytest.raises(InvalidRequestState, match="not issued by this server"):
        await without_key.call(
            "book_trip",
            {"city": "Oslo"},
            None,
            client=MODERN,
            input_responses=answer,
            request_state=first["requestState"],
        )


def book_trip_body(**params: Any) -> bytes:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    }
    call = {"name": "book_trip", "arguments": {"city": "Oslo"}, "_meta": meta, **params}
    return json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": call}).encode()


TRIP_HEADERS = {
    "host": "127.0.0.1:8000",
    "content-type": "application/json",
    "accept": "application/json",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "book_trip",
}


@pytest.mark.usefixtures("aws")
async def test_an_unreadable_request_state_key_answers_503_with_a_sentence_and_is_read_again_on_the_next_call(
    caplog: pytest.LogCaptureFixture,
) -> None:
    arn = parameter_arn("widget-mcp/request-state")
    endpoint = trip_endpoint(trip_settings(request_state_secret=None, request_state_secret_arn=arn))

    reply = await endpoint.handle("POST", TRIP_HEADERS, book_trip_body())

    assert reply.status == 503, reply.body
    error = json.loads(reply.body)["error"]
    assert error["message"] == (
        "Input requests cannot be signed or checked right now: the server could not read its requestState key; "
        "try again shortly"
    )
    assert arn not in reply.body.decode()  # where the key lives is the operator's business
    assert dict(reply.headers)["retry-after"] == "1"
    assert any(arn in r.getMessage() for r in caplog.records if r.levelname == "ERROR")

    ssm().put_parameter(Name="/widget-mcp/request-state", Value=FIRST, Type="SecureString")
    reply = await endpoint.handle("POST", TRIP_HEADERS, book_trip_body())
    first = json.loads(reply.body)["result"]
    assert (reply.status, first["resultType"]) == (200, "input_required")
    [key] = first["inputRequests"]
    answer = {key: {"action": "accept", "content": {"name": "Ada", "seats": 2}}}
    resumed = await endpoint.handle(
        "POST", TRIP_HEADERS, book_trip_body(inputResponses=answer, requestState=first["requestState"])
    )
    assert json.loads(resumed.body)["result"]["structuredContent"]["traveller"] == "Ada"


@pytest.mark.parametrize("name", ["HOST_TOKEN_SECRET", "REQUEST_STATE_SECRET"])
def test_a_secret_and_its_arn_together_are_a_settings_error_naming_both(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setenv(name, FIRST)
    monkeypatch.setenv(f"{name}_ARN", parameter_arn("both"))
    with pytest.raises(SettingsError, match=f"{name} and {name}_ARN both name the key; set one of them"):
        load_settings()


@pytest.mark.parametrize("arn", ["widget-mcp/host-token", "arn:aws:s3:::bucket/key", f"arn:aws:kms:{REGION}:1:key/x"])
def test_a_host_token_secret_arn_that_names_no_secret_is_a_settings_error(
    monkeypatch: pytest.MonkeyPatch, arn: str
) -> None:
    monkeypatch.setenv("HOST_TOKEN_SECRET_ARN", arn)
    with pytest.raises(SettingsError, match="HOST_TOKEN_SECRET_ARN: String should match pattern"):
        load_settings()
