"""Sign-in in front of Cognito, over HTTP: the metadata the endpoint publishes and its registration route,
as a deployment with `-c signIn=true` configures them."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from cognito_sign_in import API, COGNITO, ISSUER, cognito_sign_in, web_app_client
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.wiring import build_app, build_core

CHATGPT = "https://chatgpt.com/connector_platform_oauth_redirect"


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with web_app_client(cognito_sign_in(CHATGPT)) as client:
        yield client


async def test_the_protected_resource_names_the_endpoint_as_its_authorization_server(http: httpx.AsyncClient) -> None:
    answer = await http.get("/.well-known/oauth-protected-resource/mcp", headers={"x-forwarded-proto": "https"})
    assert answer.json() == {
        "resource": f"{API}/mcp",
        "authorization_servers": [API],
        "scopes_supported": ["widget-mcp/chess", "widget-mcp/forms"],
        "bearer_methods_supported": ["header"],
        "resource_name": "widget-mcp",
    }


async def test_without_client_documents_the_authorization_server_metadata_sends_users_to_cognito() -> None:
    async with web_app_client(cognito_sign_in(CHATGPT, oauth_client_documents=False)) as http:
        metadata = (await http.get("/.well-known/oauth-authorization-server")).json()
        assert (await http.get("/oauth/authorize")).status_code == 404
    assert "client_id_metadata_document_supported" not in metadata
    assert metadata["issuer"] == API
    assert metadata["authorization_endpoint"] == f"{COGNITO}/oauth2/authorize"
    assert metadata["registration_endpoint"] == f"{API}/oauth/register"
    assert metadata["code_challenge_methods_supported"] == ["S256"]
    assert metadata["jwks_uri"] == f"{ISSUER}/.well-known/jwks.json"


async def test_chatgpt_registers_and_gets_the_pre_created_client(http: httpx.AsyncClient) -> None:
    answer = await http.post("/oauth/register", json={"redirect_uris": [CHATGPT], "client_name": "ChatGPT"})
    assert answer.status_code == 201
    assert answer.json()["client_id"] == "client-1"


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (b'{"redirect_uris": ["https://evil.example.com/cb"]}', "invalid_redirect_uri"),
        (b"not json", "invalid_client_metadata"),
        (b"[]", "invalid_client_metadata"),
        (b'{"redirect_uris": ["' + b"x" * 20_000 + b'"]}', "invalid_client_metadata"),
    ],
)
async def test_a_bad_registration_gets_a_400_with_the_rfc_7591_error(
    http: httpx.AsyncClient, body: bytes, error: str
) -> None:
    answer = await http.post("/oauth/register", content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 400
    assert answer.json()["error"] == error


async def test_metadata_is_not_served_for_a_host_that_is_not_ours(http: httpx.AsyncClient) -> None:
    answer = await http.get("/.well-known/oauth-protected-resource", headers={"host": "evil.example.com"})
    assert answer.status_code == 421


async def test_with_sign_in_off_there_is_no_metadata() -> None:
    app = build_app(build_core(Settings(), store=InMemoryDocumentStore()))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8000") as http:
        assert (await http.get("/.well-known/oauth-protected-resource")).status_code == 404
