"""A local OAuth 2.1 authorization server for `make dev` and the tests: a fresh RSA key (or one handed over, so
`make dev`'s reloaded app keeps its tokens valid), its JWKS,
dynamic client registration, the authorization-code grant with PKCE (S256 only) and refresh tokens.

It signs every user in without a password (the `login_hint` names who, else `LOCAL_USER`): it exists so the
endpoint's real token checks run on a laptop, never to guard anything. State lives in memory.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

LOCAL_USER = "local-user"
CODE_SECONDS = 60
TOKEN_SECONDS = 3600


class IssuerError(ValueError):
    """An OAuth error response: `error` is the RFC 6749 code, the message its description."""

    def __init__(self, error: str, description: str) -> None:
        super().__init__(description)
        self.error = error
        self.description = description


@dataclass(frozen=True)
class Client:
    client_id: str
    redirect_uris: tuple[str, ...]
    name: str = ""


@dataclass(frozen=True)
class _Grant:
    client_id: str
    redirect_uri: str
    challenge: str
    subject: str
    scopes: frozenset[str]
    resource: str | None
    expires_at: float


@dataclass
class LocalIssuer:
    """`issuer` is the URL this server is reached at (its metadata and tokens name it exactly)."""

    issuer: str
    audience: str
    scopes: tuple[str, ...] = ()
    clock: Callable[[], float] = time.time
    # PEM of the signing key to use (`private_key_pem()` of another instance); None: a fresh key.
    key_pem: bytes | None = field(default=None, repr=False, compare=False)
    _key: rsa.RSAPrivateKey = field(init=False, repr=False)
    kid: str = field(init=False)
    _clients: dict[str, Client] = field(init=False, default_factory=dict)
    _codes: dict[str, _Grant] = field(init=False, default_factory=dict)
    _refresh: dict[str, _Grant] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.issuer = self.issuer.rstrip("/")
        if self.key_pem is None:
            self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        else:
            loaded = serialization.load_pem_private_key(self.key_pem, password=None)
            if not isinstance(loaded, rsa.RSAPrivateKey):
                raise ValueError("the local issuer signs with an RSA key")
            self._key = loaded
        # Named after the public key, so the same key keeps the same `kid` in every process.
        public = self._key.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        self.kid = hashlib.sha256(public).hexdigest()[:16]

    def private_key_pem(self) -> bytes:
        """The signing key, for another process serving the same issuer (never leaves this machine)."""
        return self._key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )

    # --- keys and tokens ---------------------------------------------------------------------------

    def jwks(self) -> dict[str, Any]:
        public = jwt.algorithms.RSAAlgorithm.to_jwk(self._key.public_key(), as_dict=True)
        return {"keys": [{**public, "kid": self.kid, "use": "sig", "alg": "RS256"}]}

    def mint(
        self,
        subject: str,
        *,
        scopes: Iterable[str] | None = None,
        audience: str | None = None,
        expires_in: float = TOKEN_SECONDS,
        claims: dict[str, Any] | None = None,
        headers: dict[str, Any] | None = None,
        key: rsa.RSAPrivateKey | None = None,
    ) -> str:
        """An RS256 access token. `claims`, `headers` and `key` override the defaults (a None claim is left
        out), so tests can make every kind of bad token."""
        now = self.clock()
        body: dict[str, Any] = {
            "iss": self.issuer,
            "sub": subject,
            "aud": audience or self.audience,
            "iat": int(now),
            "exp": int(now + expires_in),
            "scope": " ".join(self.scopes if scopes is None else scopes),
            "jti": secrets.token_hex(8),
            **(claims or {}),
        }
        body = {k: v for k, v in body.items() if v is not None}
        return jwt.encode(
            body, key or self._key, algorithm="RS256", headers={"kid": self.kid, "typ": "at+jwt", **(headers or {})}
        )

    # --- the authorization server ------------------------------------------------------------------

    def metadata(self) -> dict[str, Any]:
        """RFC 8414 authorization server metadata."""
        return {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "registration_endpoint": f"{self.issuer}/register",
            "jwks_uri": f"{self.issuer}/.well-known/jwks.json",  # where OAUTH_JWKS_URL looks by default
            "scopes_supported": list(self.scopes),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
        }

    def register(self, request: dict[str, Any]) -> dict[str, Any]:
        """RFC 7591 dynamic registration of a public client."""
        uris = request.get("redirect_uris")
        if not isinstance(uris, list) or not uris or not all(isinstance(u, str) and u for u in uris):
            raise IssuerError("invalid_redirect_uri", "redirect_uris must be a non-empty list of URLs")
        for uri in uris:
            _check_redirect(uri)
        name = request.get("client_name")
        client = Client(secrets.token_urlsafe(12), tuple(uris), name if isinstance(name, str) else "")
        self._clients[client.client_id] = client
        return {
            "client_id": client.client_id,
            "client_id_issued_at": int(self.clock()),
            "redirect_uris": list(client.redirect_uris),
            "client_name": client.name,
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
        }

    def authorize(self, params: dict[str, str]) -> str:
        """Signs the user in at once and returns the redirect URL carrying the code (RFC 6749 4.1.2)."""
        client = self._clients.get(params.get("client_id", ""))
        if client is None:
            raise IssuerError("unauthorized_client", "unknown client_id: register the client first")
        redirect = params.get("redirect_uri", "")
        if redirect not in client.redirect_uris:
            raise IssuerError("invalid_request", "redirect_uri is not one the client registered")
        if params.get("response_type") != "code":
            raise IssuerError("unsupported_response_type", "only response_type=code is supported")
        challenge = params.get("code_challenge", "")
        if params.get("code_challenge_method") != "S256" or not 43 <= len(challenge) <= 128:
            raise IssuerError("invalid_request", "PKCE is required: code_challenge with code_challenge_method=S256")
        code = secrets.token_urlsafe(24)
        self._codes[code] = _Grant(
            client_id=client.client_id,
            redirect_uri=redirect,
            challenge=challenge,
            subject=params.get("login_hint") or LOCAL_USER,
            scopes=self._granted(params.get("scope")),
            resource=params.get("resource"),
            expires_at=self.clock() + CODE_SECONDS,
        )
        state = params.get("state")
        query = {"code": code, **({"state": state} if state else {}), "iss": self.issuer}
        return redirect + ("&" if "?" in redirect else "?") + urlencode(query)

    def token(self, form: dict[str, str]) -> dict[str, Any]:
        """The token endpoint: `authorization_code` (with the PKCE verifier) and `refresh_token` grants."""
        grant_type = form.get("grant_type")
        if grant_type == "authorization_code":
            grant = self._codes.pop(form.get("code", ""), None)  # a code is good for one exchange
            if grant is None or grant.expires_at < self.clock():
                raise IssuerError("invalid_grant", "the code is unknown, used or expired")
            if form.get("client_id") != grant.client_id or form.get("redirect_uri") != grant.redirect_uri:
                raise IssuerError("invalid_grant", "client_id and redirect_uri must match the authorization")
            if _s256(form.get("code_verifier", "")) != grant.challenge:
                raise IssuerError("invalid_grant", "code_verifier does not match the code_challenge")
        elif grant_type == "refresh_token":
            grant = self._refresh.pop(form.get("refresh_token", ""), None)
            if grant is None or form.get("client_id") != grant.client_id:
                raise IssuerError("invalid_grant", "the refresh token is unknown or was issued to another client")
        else:
            raise IssuerError("unsupported_grant_type", "use authorization_code or refresh_token")
        refresh = secrets.token_urlsafe(24)
        self._refresh[refresh] = grant
        return {
            "access_token": self.mint(grant.subject, scopes=grant.scopes, audience=grant.resource or self.audience),
            "token_type": "Bearer",
            "expires_in": TOKEN_SECONDS,
            "refresh_token": refresh,
            "scope": " ".join(sorted(grant.scopes)),
        }

    def _granted(self, requested: str | None) -> frozenset[str]:
        if not requested:
            return frozenset(self.scopes)
        unknown = set(requested.split()) - set(self.scopes)
        if unknown:
            raise IssuerError("invalid_scope", f"unknown scope(s): {' '.join(sorted(unknown))}")
        return frozenset(requested.split())


def _check_redirect(uri: str) -> None:
    """An http(s) URL with a host, no fragment (RFC 6749 3.1.2) and no spaces or control characters: the code is
    sent there by the browser, so a `javascript:` or `data:` one would run in the page that signs in. Every client
    of this issuer (the playground, the SDKs' OAuth providers, MCP Inspector) redirects to an http(s) page or a
    loopback listener."""
    if not _is_web_url(uri):
        shown = uri if len(uri) <= 100 else uri[:100] + "…"
        description = f"a redirect URI must be an http(s) URL without a fragment: {shown!r}"
        raise IssuerError("invalid_redirect_uri", description)


def _is_web_url(uri: str) -> bool:
    if "#" in uri or any(c.isspace() or not c.isprintable() for c in uri):
        return False
    try:
        parts = urlsplit(uri)
        _ = parts.port  # a port that is not a number in range raises ValueError
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
