"""Sign-in end to end: `make dev`'s server with AUTH_MODE=oauth and its local issuer, the official MCP client
doing discovery, dynamic registration and the PKCE code flow, and the verified subject owning the state."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import httpx2
import pytest
from auth_challenges import parse_bearer_challenge
from mcp import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from tool_results import error_of
from widget_mcp.local.process import LocalServer, local_server

CALLBACK = "http://127.0.0.1:1/callback"  # never reached: the test reads the redirect itself


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with local_server("sign-in-state", settings={"AUTH_MODE": "oauth"}) as running:
        yield running


class Tokens:
    """The client's token storage, in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


@asynccontextmanager
async def signed_in_client(base: str, user: str, tokens: Tokens) -> AsyncIterator[Client]:
    """An official MCP client that signs `user` in when the server asks (the local issuer takes the login hint)."""
    redirect: dict[str, str] = {}

    async def open_browser(url: str) -> None:
        async with httpx.AsyncClient() as browser:
            answer = await browser.get(f"{url}&login_hint={user}")
        assert answer.status_code == 302, answer.text
        redirect["to"] = answer.headers["location"]

    async def come_back() -> AuthorizationCodeResult:
        query = {k: v[0] for k, v in parse_qs(urlsplit(redirect["to"]).query).items()}
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))

    provider = OAuthClientProvider(
        server_url=f"{base}/mcp",
        client_metadata=OAuthClientMetadata(redirect_uris=[CALLBACK], client_name="sign-in test"),  # type: ignore[list-item]
        storage=tokens,
        redirect_handler=open_browser,
        callback_handler=come_back,
    )
    async with httpx2.AsyncClient(auth=provider, timeout=30) as http:
        transport = streamable_http_client(f"{base}/mcp", http_client=http)
        async with Client(transport, mode="legacy") as client:  # type: ignore[arg-type]
            yield client


def error_code(result: Any) -> str:
    return str(error_of(result)["code"])


async def test_a_user_signs_in_through_the_official_client_and_plays_as_the_verified_subject(
    server: LocalServer,
) -> None:
    tokens = Tokens()
    async with signed_in_client(server.base, "alice", tokens) as client:
        created = await client.call_tool("chess_new_game", {})  # the 401 here starts the sign-in
        assert not created.is_error, created
        game_id = created.structured_content["gameId"]
        claimed = {"openai/subject": "mallory"}
        moved = await client.call_tool("chess_move", {"gameId": game_id, "move": "e4"}, meta=claimed)
        assert moved.structured_content["ply"] == 1
    assert tokens.client is not None
    assert tokens.tokens is not None
    # The client asked for the scope the challenge named, and got just that.
    assert str(tokens.tokens.scope).split() == ["chess"]

    # The game belongs to the verified subject: a claimed openai/subject counts for nothing.
    async with Client(f"{server.base}/mcp", mode="legacy") as anonymous:
        public = await anonymous.call_tool("display_demo", {"message": "hi"})
        assert not public.is_error
    async with signed_in_client(server.base, "mallory", Tokens()) as mallory:
        stolen = await mallory.call_tool("chess_show_game", {"gameId": game_id})
        assert error_code(stolen) == "game_not_found"
    async with signed_in_client(server.base, "alice", tokens) as again:
        shown = await again.call_tool("chess_show_game", {"gameId": game_id})
        assert shown.structured_content["ply"] == 1


async def test_a_call_to_a_protected_tool_without_a_token_gets_401_with_the_metadata_url(server: LocalServer) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "chess_list_games"}}
    headers = {"accept": "application/json"}
    async with httpx.AsyncClient() as http:
        answer = await http.post(f"{server.base}/mcp", json=body, headers=headers)
        metadata = await http.get(f"{server.base}/.well-known/oauth-protected-resource/mcp")
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == (
        f'Bearer resource_metadata="{server.base}/.well-known/oauth-protected-resource/mcp", scope="chess"'
    )
    assert metadata.json() == {
        "resource": f"{server.base}/mcp",
        "authorization_servers": [f"{server.base}/issuer"],
        "scopes_supported": ["chess", "forms"],
        "bearer_methods_supported": ["header"],
        "resource_name": "widget-mcp",
    }


async def test_chatgpt_calling_without_a_token_gets_an_in_band_challenge_to_link_its_account(
    server: LocalServer,
) -> None:
    params = {"name": "chess_new_game", "arguments": {}, "_meta": {"openai/subject": "u1", "openai/locale": "en"}}
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
    async with httpx.AsyncClient() as http:
        answer = await http.post(f"{server.base}/mcp", json=body, headers={"accept": "application/json"})
    assert answer.status_code == 200
    result = answer.json()["result"]
    assert result["isError"] is True
    assert result["_meta"]["error"]["code"] == "identity_required"
    (challenge,) = result["_meta"]["mcp/www_authenticate"]
    assert challenge.startswith(f'Bearer resource_metadata="{server.base}/.well-known/oauth-protected-resource/mcp"')


async def test_the_banner_says_sign_in_is_on_with_the_local_issuer(server: LocalServer) -> None:
    banner = "".join(server.output)
    assert f"local issuer {server.base}/issuer" in banner
    token = banner.split("  token          ", 1)[1].split()[0]
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "chess_list_games"}}
    headers = {"accept": "application/json", "authorization": f"Bearer {token}"}
    async with httpx.AsyncClient() as http:
        answer = await http.post(f"{server.base}/mcp", json=body, headers=headers)
    assert answer.status_code == 200
    assert answer.json()["result"]["structuredContent"]["games"] == []


async def test_a_token_without_a_tools_scope_gets_403_and_the_client_steps_up_to_it(server: LocalServer) -> None:
    tokens = Tokens()
    async with signed_in_client(server.base, "carol", tokens) as client:
        await client.call_tool("chess_list_games", {})
        assert str(tokens.tokens and tokens.tokens.scope).split() == ["chess"]
        asked = await client.call_tool("ask_question", {"question": {"type": "object", "properties": {"x": {}}}})
        assert not asked.is_error, asked
    assert tokens.tokens is not None
    assert "forms" in str(tokens.tokens.scope).split()


async def test_a_forged_or_expired_token_is_refused_with_invalid_token(server: LocalServer) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    async with httpx.AsyncClient() as http:
        answer = await http.post(
            f"{server.base}/mcp",
            json=body,
            headers={"accept": "application/json", "authorization": "Bearer eyJhbGciOiJub25lIn0.e30."},
        )
    assert answer.status_code == 401
    assert 'error="invalid_token"' in answer.headers["www-authenticate"]
    assert answer.json()["error"]["data"] == {"error": "invalid_token"}


@pytest.mark.parametrize("alg", ["ES256", "ℝS256", 'RS256", error="insufficient_scope'])
async def test_a_token_whose_header_is_crafted_gets_401_with_a_challenge_that_parses(
    server: LocalServer, alg: str
) -> None:
    # The banner's token names the issuer's real key; its header is rewritten as an attacker would.
    token = "".join(server.output).split("  token          ", 1)[1].split()[0]
    _, payload, signature = token.split(".")
    header = base64.urlsafe_b64encode(json.dumps({"alg": alg, "kid": _kid(token)}).encode()).decode().rstrip("=")
    body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    async with httpx.AsyncClient() as http:
        answer = await http.post(
            f"{server.base}/mcp",
            json=body,
            headers={"accept": "application/json", "authorization": f"Bearer {header}.{payload}.{signature}"},
        )
    assert answer.status_code == 401
    params = parse_bearer_challenge(answer.headers["www-authenticate"])
    assert params["error"] == "invalid_token"
    assert alg not in answer.headers["www-authenticate"]


def _kid(token: str) -> str:
    head = token.split(".")[0]
    return str(json.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)))["kid"])


async def test_a_browser_host_on_a_loopback_origin_can_read_the_sign_in_challenge(server: LocalServer) -> None:
    # `make dev` allows loopback origins on any port unless CORS_ORIGINS is set (MCP Inspector runs on :6274).
    origin = {"origin": "http://localhost:6274"}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "chess_list_games"}}
    async with httpx.AsyncClient() as http:
        preflight = await http.options(
            f"{server.base}/mcp",
            headers={
                **origin,
                "access-control-request-method": "POST",
                "access-control-request-headers": "authorization",
            },
        )
        answer = await http.post(f"{server.base}/mcp", json=body, headers={**origin, "accept": "application/json"})
    assert preflight.status_code == 204
    assert "authorization" in preflight.headers["access-control-allow-headers"]
    assert answer.status_code == 401
    assert answer.headers["access-control-allow-origin"] == "http://localhost:6274"
    assert "www-authenticate" in answer.headers["access-control-expose-headers"]
    assert answer.headers["www-authenticate"].startswith("Bearer resource_metadata=")
    assert "CORS origins   http://127.0.0.1:*, http://localhost:*, http://[::1]:*" in "".join(server.output)
