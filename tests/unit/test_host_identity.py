"""Host tokens at /mcp: the user a host integration vouches for owns the call's state, and a widget in a sandboxed
frame (`Origin: null`) may call, with its token, exactly the tools a widget may call, and nothing else."""

from __future__ import annotations

import json
from typing import Any

import pytest
from widget_mcp.auth.host_tokens import HEADER, Scope, sign
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.transport.endpoint import McpEndpoint
from widget_mcp.transport.replies import HttpReply
from widget_mcp.wiring import build_core

from tests.auth_challenges import parse_challenge

HOST = "mcp.example.com"
SECRET = "a-shared-secret-of-at-least-32-characters"
JSON = {"content-type": "application/json", "accept": "application/json"}
PREFLIGHT = {"access-control-request-method": "POST", "access-control-request-headers": f"content-type, {HEADER}"}


@pytest.fixture(autouse=True)
def _no_metrics(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")


def _endpoint(secret: str | None = SECRET, **settings: Any) -> McpEndpoint:
    config = Settings(allowed_hosts=(HOST,), table_name="unused", host_token_secret=secret, **settings)
    return build_core(config, store=InMemoryDocumentStore()).endpoint


def _token(user: str, scope: Scope = "call", secret: str = SECRET) -> str:
    return sign(secret, "openwebui", user, scope, 600)


def _call(name: str, arguments: dict[str, Any], meta: dict[str, Any] | None = None) -> bytes:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if meta:
        params["_meta"] = meta
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).encode()


async def _post(endpoint: McpEndpoint, body: bytes, **headers: str) -> tuple[HttpReply, dict[str, Any]]:
    reply = await endpoint.handle("POST", {"host": HOST, **JSON, **headers}, body)
    return reply, json.loads(reply.body)


async def _new_game(endpoint: McpEndpoint, **headers: str) -> str:
    reply, answer = await _post(endpoint, _call("chess_new_game", {}), **headers)
    assert reply.status == 200, answer
    return str(answer["result"]["structuredContent"]["gameId"])


async def _move(endpoint: McpEndpoint, game: str, **headers: str) -> tuple[HttpReply, dict[str, Any]]:
    return await _post(endpoint, _call("chess_move", {"gameId": game, "move": "e4"}), **headers)


async def test_a_host_users_game_is_theirs_alone_and_no_hint_can_pose_as_them() -> None:
    endpoint = _endpoint()
    game = await _new_game(endpoint, **{HEADER: _token("alice")})
    _reply, answer = await _move(endpoint, game, **{HEADER: _token("bob")})
    assert answer["result"]["_meta"]["error"]["code"] == "game_not_found"
    for hint in ({"io.modelcontextprotocol/user": "openwebui/alice"}, {"openai/subject": "openwebui/alice"}, None):
        _reply, answer = await _post(endpoint, _call("chess_move", {"gameId": game, "move": "e4"}, hint))
        assert answer["result"]["_meta"]["error"]["code"] == "game_not_found", hint
    _reply, answer = await _move(endpoint, game, **{HEADER: _token("alice")})
    assert answer["result"]["structuredContent"]["ply"] == 1


async def test_a_sandboxed_widgets_preflight_is_answered_for_origin_null_only_when_host_tokens_are_on() -> None:
    on = await _endpoint().handle("OPTIONS", {"host": HOST, "origin": "null", **PREFLIGHT}, b"")
    assert on.status == 204
    headers = dict(on.headers)
    assert headers["access-control-allow-origin"] == "null"
    assert HEADER in headers["access-control-allow-headers"]
    off = await _endpoint(None).handle("OPTIONS", {"host": HOST, "origin": "null", **PREFLIGHT}, b"")
    assert off.status == 403
    assert "access-control-allow-origin" not in dict(off.headers)


async def test_a_widget_token_from_a_sandboxed_frame_plays_its_users_game_and_the_reply_is_readable() -> None:
    endpoint = _endpoint()
    game = await _new_game(endpoint, **{HEADER: _token("alice")})
    reply, answer = await _move(endpoint, game, origin="null", **{HEADER: _token("alice", "widget")})
    assert reply.status == 200
    assert answer["result"]["structuredContent"]["ply"] == 1
    assert dict(reply.headers)["access-control-allow-origin"] == "null"


@pytest.mark.parametrize(
    "body",
    [
        _call("chess_new_game", {}),  # not a tool a widget may call
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode(),
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "resources/list"}).encode(),
    ],
)
async def test_a_widget_token_opens_only_the_tools_a_widget_may_call(body: bytes) -> None:
    endpoint = _endpoint()
    for headers in ({"origin": "null", HEADER: _token("alice", "widget")}, {HEADER: _token("alice", "widget")}):
        reply, answer = await _post(endpoint, body, **headers)
        assert reply.status == 403, answer
        assert "only call the tools a widget may call" in answer["error"]["message"]


async def test_from_a_sandboxed_frame_even_a_call_token_opens_only_the_tools_a_widget_may_call() -> None:
    # Any page can frame itself sandboxed (Origin: null): a call token that reached one is a widget's there.
    endpoint = _endpoint()
    reply, answer = await _post(endpoint, _call("chess_new_game", {}), origin="null", **{HEADER: _token("alice")})
    assert reply.status == 403, answer
    assert "only call the tools a widget may call" in answer["error"]["message"]
    game = await _new_game(endpoint, **{HEADER: _token("alice")})
    reply, answer = await _move(endpoint, game, origin="null", **{HEADER: _token("alice")})
    assert answer["result"]["structuredContent"]["ply"] == 1


async def test_origin_null_without_a_token_or_without_host_tokens_on_is_refused_as_before() -> None:
    reply, answer = await _post(_endpoint(), _call("chess_move", {"gameId": "x", "move": "e4"}), origin="null")
    assert reply.status == 403
    assert "needs its host token" in answer["error"]["message"]
    reply, _answer = await _post(
        _endpoint(None), _call("chess_move", {"gameId": "x", "move": "e4"}), origin="null", **{HEADER: _token("a")}
    )
    assert reply.status == 403


@pytest.mark.parametrize(
    ("secret", "token", "says"),
    [
        (SECRET, _token("alice", secret="another-secret-of-at-least-32-characters"), "signature does not verify"),
        (SECRET, "not-a-token", "Host token rejected"),
        (None, _token("alice"), "set HOST_TOKEN_SECRET"),
    ],
)
async def test_a_bad_host_token_is_refused_with_401_and_a_reason_never_served_anonymously(
    secret: str | None, token: str, says: str
) -> None:
    reply, answer = await _post(_endpoint(secret), _call("chess_new_game", {}), **{HEADER: token})
    assert reply.status == 401
    assert says in answer["error"]["message"]
    challenges = [value for name, value in reply.headers if name == "www-authenticate"]
    assert [parse_challenge(value) for value in challenges] == [
        ("HostToken", {"realm": "widget-mcp", "header": HEADER, "error": "invalid_token"})
    ]


def test_a_short_host_token_secret_is_a_settings_error_naming_the_variable() -> None:
    with pytest.raises(ValueError, match="host_token_secret"):
        Settings(host_token_secret="short")


async def test_with_sign_in_on_host_tokens_are_refused_and_origin_null_stays_closed() -> None:
    settings = Settings(
        allowed_hosts=(HOST,),
        table_name="unused",
        host_token_secret=SECRET,
        auth_mode="oauth",
        oauth_issuer="https://issuer.example.com",
        oauth_audience=("client-1",),
    )
    endpoint = build_core(settings, store=InMemoryDocumentStore()).endpoint
    reply, answer = await _post(endpoint, _call("chess_new_game", {}), **{HEADER: _token("alice")})
    assert reply.status == 401
    assert "Sign-in is on" in answer["error"]["message"]
    preflight = await endpoint.handle("OPTIONS", {"host": HOST, "origin": "null", **PREFLIGHT}, b"")
    assert preflight.status == 403
