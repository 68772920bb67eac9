"""The code flow for clients Cognito does not know: a client id metadata document's URL (client_documents.py).

Cognito knows one public client. A client whose id is a document URL is sent to Cognito's authorize endpoint as
that client once its document allows the redirect it asks for (and the deployment does too), and its token
request is passed on to Cognito's token endpoint the same way. The tokens stay Cognito's; the document only
decides who may start a sign-in and where the code may go. Clients that registered (DCR) pass through unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlencode

from widget_mcp.auth.client_documents import ClientDocuments, ClientRefused, is_client_document_url
from widget_mcp.auth.facade import AuthorizationServerFacade

TOKEN_TIMEOUT_SECONDS = 5.0
MAX_TOKEN_ANSWER_BYTES = 64 * 1024
GRANTS = ("authorization_code", "refresh_token")


@dataclass(frozen=True)
class TokenAnswer:
    status: int
    body: bytes
    content_type: str


class TokenEndpoint(Protocol):
    """Cognito's token endpoint: posts the form as it is and answers what Cognito answered."""

    async def exchange(self, form: Mapping[str, str]) -> TokenAnswer: ...


class HttpsTokenEndpoint:
    def __init__(self, url: str, *, timeout: float = TOKEN_TIMEOUT_SECONDS) -> None:
        self._url = url
        self._timeout = timeout

    async def exchange(self, form: Mapping[str, str]) -> TokenAnswer:
        import httpx2  # the MCP SDK's HTTP client, already in the asset; imported on first use, not at a cold start

        # Read only up to the bound: an answer past it is never held whole.
        async with (
            httpx2.AsyncClient(timeout=self._timeout, follow_redirects=False, trust_env=False) as client,
            client.stream("POST", self._url, data=dict(form), headers={"accept": "application/json"}) as answer,
        ):
            body = bytearray()
            async for chunk in answer.aiter_bytes():
                body += chunk
                if len(body) > MAX_TOKEN_ANSWER_BYTES:
                    return TokenAnswer(502, b'{"error":"server_error"}', "application/json")
            return TokenAnswer(answer.status_code, bytes(body), answer.headers.get("content-type", "application/json"))


@dataclass(frozen=True)
class ClientFlow:
    facade: AuthorizationServerFacade
    documents: ClientDocuments
    tokens: TokenEndpoint

    async def authorize_location(self, query: Mapping[str, str]) -> str:
        """Where to send the browser: Cognito's authorize endpoint, with Cognito's client for a document's URL."""
        client_id = query.get("client_id", "")
        if not is_client_document_url(client_id):
            self._known(client_id)
            return f"{self.facade.authorize_url}?{urlencode(dict(query))}"
        document = await self.documents.resolve(client_id)
        redirect = query.get("redirect_uri", "")
        if redirect not in document.redirect_uris:
            raise ClientRefused("invalid_request", "redirect_uri is not one of the client's metadata document's")
        if redirect not in self.facade.redirect_uris:
            raise ClientRefused(
                "invalid_request",
                f"redirect URI not allowed: {redirect[:200]} (the deployment's OAuth callbacks list them)",
            )
        if query.get("response_type") != "code":
            raise ClientRefused("unsupported_response_type", "only the authorization code flow (response_type=code)")
        if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
            raise ClientRefused("invalid_request", "PKCE is required: code_challenge with code_challenge_method=S256")
        return f"{self.facade.authorize_url}?{urlencode({**query, 'client_id': self.facade.client_id})}"

    async def token(self, form: Mapping[str, str]) -> TokenAnswer:
        client_id = form.get("client_id", "")
        if form.get("grant_type") not in GRANTS:
            raise ClientRefused("unsupported_grant_type", "grant_type is authorization_code or refresh_token")
        if is_client_document_url(client_id):
            document = await self.documents.resolve(client_id)
            code_grant = form.get("grant_type") == "authorization_code"
            if code_grant and form.get("redirect_uri") not in document.redirect_uris:
                raise ClientRefused("invalid_grant", "redirect_uri is not one of the client's metadata document's")
            form = {**form, "client_id": self.facade.client_id}
        else:
            self._known(client_id)
        return await self.tokens.exchange(form)

    def _known(self, client_id: str) -> None:
        if client_id != self.facade.client_id:
            raise ClientRefused(
                "invalid_client", "unknown client_id: register at /oauth/register, or use a metadata document's URL"
            )
