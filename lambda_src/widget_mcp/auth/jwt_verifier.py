"""Access-token verification: signature through the issuer's JWKS, then issuer, audience or client, expiry,
token use and subject. PyJWT does the JOSE work; this module decides what a token must say to be accepted."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from widget_mcp.auth.tokens import AccessToken, TokenRejected

# Asymmetric only: a symmetric algorithm would let anyone holding the public key sign ("alg confusion"),
# and "none" signs nothing.
ALGORITHMS = ("RS256", "RS384", "RS512", "ES256", "ES384", "PS256")
_RSA = ("RS256", "RS384", "RS512", "PS256")
_EC_CURVES = {"secp256r1": ("ES256",), "secp384r1": ("ES384",)}
# Every reason below is a fixed sentence: nothing from the token is ever repeated back to the caller.
_NOT_ACCEPTED = f"the token is not signed with an accepted algorithm ({', '.join(ALGORITHMS)})"
# Cognito marks its tokens with `token_use`; an ID token must not open the API.
ACCESS_USE = "access"


class SigningKeys(Protocol):
    """Finds the public key a token names (by `kid`)."""

    def key_for(self, token: str) -> Any: ...


class JwksKeys:
    """The issuer's JWKS, fetched on first use and cached; an unknown `kid` refetches once (key rotation)."""

    def __init__(self, url: str, *, timeout: float = 3.0, lifespan: float = 3600.0) -> None:
        self._client = jwt.PyJWKClient(url, cache_keys=True, lifespan=lifespan, timeout=timeout)

    def key_for(self, token: str) -> Any:
        try:
            return self._client.get_signing_key_from_jwt(token).key
        except jwt.PyJWKClientConnectionError as exc:
            raise TokenRejected("the issuer's signing keys could not be fetched; try again") from exc
        except jwt.PyJWKClientError as exc:
            raise TokenRejected("the token is not signed by a key of the issuer") from exc
        except jwt.PyJWTError as exc:
            raise TokenRejected("the token is malformed") from exc


class TokenVerifier:
    def __init__(
        self,
        *,
        issuer: str,
        audiences: Iterable[str],
        keys: SigningKeys,
        leeway_seconds: float = 30.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._issuer = issuer
        self._audiences = frozenset(audiences)
        if not self._audiences:
            raise ValueError("a verifier needs at least one accepted audience or client id")
        self._keys = keys
        self._leeway = leeway_seconds
        self._clock = clock

    def verify(self, token: str) -> AccessToken:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError as exc:
            raise TokenRejected("the token is malformed") from exc
        alg = header.get("alg")
        if not isinstance(alg, str):
            raise TokenRejected("the token is malformed")
        if alg not in ALGORITHMS:
            raise TokenRejected(_NOT_ACCEPTED)
        key = self._keys.key_for(token)
        if alg not in algorithms_for(key):
            # PyJWT raises TypeError for a key of another family (an ES256 token naming an RSA key).
            raise TokenRejected("the token's algorithm does not match the issuer's key")
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=[alg],
                issuer=self._issuer,
                leeway=self._leeway,
                # Time is checked below against our clock, audience against `aud` or `client_id`.
                options={
                    "require": ["exp", "iss", "sub"],
                    "verify_aud": False,
                    "verify_exp": False,
                    "verify_nbf": False,
                    "verify_iat": False,
                },
            )
        except jwt.InvalidIssuerError as exc:
            raise TokenRejected("the token was issued by another issuer") from exc
        except jwt.InvalidSignatureError as exc:
            raise TokenRejected("the token's signature does not verify") from exc
        except jwt.MissingRequiredClaimError as exc:
            raise TokenRejected(f"the token has no {exc.claim!r} claim") from exc
        except (jwt.PyJWTError, TypeError, ValueError) as exc:
            raise TokenRejected("the token is malformed") from exc
        self._check_time(claims)
        self._check_audience(claims)
        if claims.get("token_use", ACCESS_USE) != ACCESS_USE:
            raise TokenRejected("an ID token is not an access token")
        subject = claims["sub"]
        if not isinstance(subject, str) or not subject:
            raise TokenRejected("the token's subject is empty")
        expires = _instant(claims["exp"])
        return AccessToken(
            subject=subject,
            scopes=_scopes(claims),
            client_id=claims.get("client_id") if isinstance(claims.get("client_id"), str) else None,
            expires_at=int(expires) if expires is not None else None,
        )

    def _check_time(self, claims: dict[str, Any]) -> None:
        now = self._clock()
        exp, nbf = _instant(claims.get("exp")), claims.get("nbf")
        if exp is None or now > exp + self._leeway:
            raise TokenRejected("the token has expired")
        if nbf is not None:
            start = _instant(nbf)
            if start is None:
                raise TokenRejected("the token's 'nbf' claim is not a time")
            if now < start - self._leeway:
                raise TokenRejected("the token is not valid yet")

    def _check_audience(self, claims: dict[str, Any]) -> None:
        # RFC 9068 tokens name the resource in `aud`; Cognito access tokens carry no `aud`, only `client_id`.
        aud = claims.get("aud")
        named = [*(aud if isinstance(aud, list) else [aud]), claims.get("client_id")]
        if not {n for n in named if isinstance(n, str)} & self._audiences:
            raise TokenRejected("the token was issued for another audience")


def algorithms_for(key: Any) -> tuple[str, ...]:
    """The accepted algorithms a public key can verify (RFC 7518): RSA keys the RS and PS ones, an EC key the one
    of its curve, anything else none."""
    if isinstance(key, rsa.RSAPublicKey):
        return _RSA
    if isinstance(key, ec.EllipticCurvePublicKey):
        return _EC_CURVES.get(key.curve.name, ())
    return ()


def _instant(value: Any) -> float | None:
    """A NumericDate claim as seconds, or None when it is not a finite number (JSON as PyJWT reads it admits
    NaN, Infinity, booleans, and integers too large for a float)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        seconds = float(value)
    except OverflowError:
        return None
    return seconds if math.isfinite(seconds) else None


def _scopes(claims: dict[str, Any]) -> frozenset[str]:
    scope = claims.get("scope")
    if isinstance(scope, str):
        return frozenset(scope.split())
    scp = claims.get("scp")  # the list form some issuers use
    if isinstance(scp, list):
        return frozenset(s for s in scp if isinstance(s, str))
    return frozenset()
