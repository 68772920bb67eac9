"""Sign-in assembled from settings: the gate the endpoint consults, and the facade when Cognito needs one."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from widget_mcp.auth.client_flow import ClientFlow
from widget_mcp.auth.facade import AuthorizationServerFacade
from widget_mcp.auth.gate import SignInGate, SignInPolicy, scopes_of
from widget_mcp.settings import Settings

# What token verification imports beyond the rest of the function (lambda_asset/build.py SIGN_IN_ONLY).
TOKEN_LIBRARIES = frozenset({"jwt", "cryptography", "_cffi_backend", "cffi", "pycparser"})


@dataclass(frozen=True)
class SignIn:
    gate: SignInGate
    facade: AuthorizationServerFacade | None
    flow: ClientFlow | None = None


def build_sign_in(settings: Settings, protected: Mapping[str, tuple[str, ...]]) -> SignIn:
    """`protected`: each tool that needs sign-in and the scopes its token must hold."""
    try:  # PyJWT loads only when sign-in is on
        # PyJWT imports without cryptography, then refuses every RS256 token: ask for both up front.
        import cryptography.hazmat.primitives.asymmetric.rsa  # noqa: F401

        from widget_mcp.auth.jwt_verifier import JwksKeys, TokenVerifier
    except ModuleNotFoundError as missing:
        # The deployed asset carries PyJWT and cryptography only when the stack turns sign-in on.
        if (missing.name or "").split(".")[0] not in TOKEN_LIBRARIES:
            raise
        raise RuntimeError(
            f"AUTH_MODE=oauth needs PyJWT with cryptography ({missing.name} is missing); "
            "deploy with `-c signIn=true` instead of setting AUTH_MODE by hand"
        ) from missing

    if not (settings.oauth_issuer and settings.jwks_url):
        raise ValueError("sign-in needs OAUTH_ISSUER")  # the settings already refuse oauth mode without it
    verifier = TokenVerifier(
        issuer=settings.oauth_issuer,
        audiences=settings.oauth_audience,
        keys=JwksKeys(settings.jwks_url),
        leeway_seconds=settings.oauth_leeway_seconds,
    )
    server = settings.oauth_authorization_server or settings.oauth_issuer
    scopes = scopes_of(protected)
    policy = SignInPolicy(
        protected=dict(protected),
        scopes_supported=scopes,
        authorization_servers=(server,),
        resource=settings.oauth_resource,
    )
    facade = None
    if settings.oauth_registration_client_id and settings.oauth_authorize_url and settings.oauth_token_url:
        facade = AuthorizationServerFacade(
            issuer=server,
            authorize_url=settings.oauth_authorize_url,
            token_url=settings.oauth_token_url,
            jwks_url=settings.jwks_url,
            client_id=settings.oauth_registration_client_id,
            redirect_uris=settings.oauth_redirect_uris,
            scopes=scopes,
            client_documents=settings.oauth_client_documents,
        )
    return SignIn(SignInGate(policy, verifier), facade, _client_flow(facade))


def _client_flow(facade: AuthorizationServerFacade | None) -> ClientFlow | None:
    if facade is None or not facade.client_documents:
        return None
    from widget_mcp.auth.client_documents import ClientDocuments
    from widget_mcp.auth.client_documents_https import HttpsDocumentSource
    from widget_mcp.auth.client_flow import HttpsTokenEndpoint

    return ClientFlow(facade, ClientDocuments(HttpsDocumentSource()), HttpsTokenEndpoint(facade.token_url))
