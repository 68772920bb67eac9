"""The authorization-server facade in front of Cognito: its metadata, and registration handing out one client."""

from __future__ import annotations

import pytest
from widget_mcp.auth.facade import AuthorizationServerFacade, RegistrationRefused

CHATGPT = "https://chatgpt.com/connector_platform_oauth_redirect"
COGNITO = "https://widget-mcp-prod-123456789012.auth.eu-west-1.amazoncognito.com"


@pytest.fixture
def facade() -> AuthorizationServerFacade:
    return AuthorizationServerFacade(
        issuer="https://mcp.example.com",
        authorize_url=f"{COGNITO}/oauth2/authorize",
        token_url=f"{COGNITO}/oauth2/token",
        jwks_url="https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc/.well-known/jwks.json",
        client_id="cognito-client-1",
        redirect_uris=[CHATGPT],
        scopes=["widget-mcp/chess", "widget-mcp/forms"],
    )


def test_the_metadata_points_at_cognito_and_advertises_registration_and_pkce(
    facade: AuthorizationServerFacade,
) -> None:
    assert facade.metadata() == {
        "issuer": "https://mcp.example.com",
        "authorization_endpoint": f"{COGNITO}/oauth2/authorize",
        "token_endpoint": f"{COGNITO}/oauth2/token",
        "registration_endpoint": "https://mcp.example.com/oauth/register",
        "jwks_uri": "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc/.well-known/jwks.json",
        "scopes_supported": ["widget-mcp/chess", "widget-mcp/forms"],
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
    }


def test_chatgpt_registering_gets_the_pre_created_public_client(facade: AuthorizationServerFacade) -> None:
    registered = facade.register({"redirect_uris": [CHATGPT], "client_name": "ChatGPT"})
    assert registered == {
        "client_id": "cognito-client-1",
        "redirect_uris": [CHATGPT],
        "client_name": "ChatGPT",
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "scope": "widget-mcp/chess widget-mcp/forms",
    }


@pytest.mark.parametrize(
    ("request_body", "error"),
    [
        ({"redirect_uris": ["https://evil.example.com/cb"]}, "invalid_redirect_uri"),
        ({"redirect_uris": []}, "invalid_redirect_uri"),
        ({}, "invalid_redirect_uri"),
        ({"redirect_uris": [CHATGPT], "token_endpoint_auth_method": "client_secret_basic"}, "invalid_client_metadata"),
    ],
)
def test_a_registration_the_client_cannot_serve_is_refused_with_the_rfc_7591_code(
    facade: AuthorizationServerFacade, request_body: dict[str, object], error: str
) -> None:
    with pytest.raises(RegistrationRefused) as refused:
        facade.register(request_body)
    assert refused.value.error == error
