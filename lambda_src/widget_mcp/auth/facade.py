"""The authorization server as clients see it when the real one cannot say everything they need.

Cognito signs users in and issues the tokens, but publishes no dynamic client registration and no PKCE
method in its discovery document, both of which ChatGPT looks for. So the endpoint publishes RFC 8414
metadata of its own that points at Cognito's authorize and token endpoints, and a registration endpoint
(RFC 7591) that hands every client the one pre-created public client. Tokens stay Cognito's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

METADATA_PATH = "/.well-known/oauth-authorization-server"
REGISTRATION_PATH = "/oauth/register"
# Served only with client id metadata documents on (client_flow.py): they stand in front of Cognito's.
AUTHORIZE_PATH = "/oauth/authorize"
TOKEN_PATH = "/oauth/token"  # noqa: S105 - a path, not a secret


class RegistrationRefused(ValueError):
    """`error` is the RFC 7591 error code; the message is its description."""

    def __init__(self, error: str, description: str) -> None:
        super().__init__(description)
        self.error = error


@dataclass(frozen=True)
class AuthorizationServerFacade:
    issuer: str
    authorize_url: str
    token_url: str
    jwks_url: str
    client_id: str
    redirect_uris: Sequence[str]
    scopes: Sequence[str]
    client_documents: bool = False

    def metadata(self) -> dict[str, Any]:
        own = self.client_documents
        return {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}{AUTHORIZE_PATH}" if own else self.authorize_url,
            "token_endpoint": f"{self.issuer}{TOKEN_PATH}" if own else self.token_url,
            "registration_endpoint": f"{self.issuer}{REGISTRATION_PATH}",
            "jwks_uri": self.jwks_url,
            "scopes_supported": list(self.scopes),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
            **({"client_id_metadata_document_supported": True} if own else {}),
        }

    def register(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """Every registration gets the same public client, if it asks only for redirects that client allows."""
        uris = request.get("redirect_uris")
        if not isinstance(uris, list) or not uris or not all(isinstance(u, str) for u in uris):
            raise RegistrationRefused("invalid_redirect_uri", "redirect_uris must be a non-empty list of URLs")
        unknown = [u for u in uris if u not in self.redirect_uris]
        if unknown:
            raise RegistrationRefused(
                "invalid_redirect_uri",
                f"redirect URI not allowed: {unknown[0][:200]} (the deployment's signInCallbackUrls lists them)",
            )
        method = request.get("token_endpoint_auth_method", "none")
        if method != "none":
            raise RegistrationRefused("invalid_client_metadata", "only public clients (auth method 'none') register")
        name = request.get("client_name")
        return {
            "client_id": self.client_id,
            "redirect_uris": uris,
            "client_name": name if isinstance(name, str) else "",
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "scope": " ".join(self.scopes),
        }
