"""Access-token verification against tokens minted by the local issuer: each rejection with its reason."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

import jwt
import pytest
from auth_support import ISSUER, NOW, RESOURCE, IssuerKeys
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from widget_mcp.auth.jwt_verifier import TokenVerifier
from widget_mcp.auth.tokens import AccessToken, TokenRejected
from widget_mcp.local.issuer import LocalIssuer

NOT_ACCEPTED = "the token is not signed with an accepted algorithm (RS256, RS384, RS512, ES256, ES384, PS256)"


@pytest.fixture
def issuer() -> LocalIssuer:
    return LocalIssuer(ISSUER, audience=RESOURCE, scopes=("chess", "forms"), clock=lambda: NOW)


@pytest.fixture
def verifier(issuer: LocalIssuer) -> TokenVerifier:
    return TokenVerifier(issuer=ISSUER, audiences=[RESOURCE], keys=IssuerKeys(issuer), clock=lambda: NOW)


def _part(value: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


def _unsigned(claims: dict[str, Any], alg: str = "none") -> str:
    return f"{_part({'alg': alg, 'typ': 'JWT'})}.{_part(claims)}."


def test_a_valid_token_gives_its_subject_scopes_and_expiry(issuer: LocalIssuer, verifier: TokenVerifier) -> None:
    token = issuer.mint("user-a", scopes=["chess"])
    assert verifier.verify(token) == AccessToken(subject="user-a", scopes=frozenset({"chess"}), expires_at=NOW + 3600)


def test_a_cognito_style_token_names_the_client_instead_of_an_audience(issuer: LocalIssuer) -> None:
    verifier = TokenVerifier(issuer=ISSUER, audiences=["app-client-1"], keys=IssuerKeys(issuer), clock=lambda: NOW)
    token = issuer.mint("user-a", claims={"aud": None, "client_id": "app-client-1", "token_use": "access"})
    assert verifier.verify(token).client_id == "app-client-1"


def test_a_cognito_token_bound_to_the_resource_is_accepted_as_the_deployed_stack_configures_it(
    issuer: LocalIssuer,
) -> None:
    # widget_mcp.cdk.mcp_api sets OAUTH_AUDIENCE to "<client id>,<McpUrl>": Cognito writes the bound resource in `aud`.
    audiences = ["app-client-1", RESOURCE]
    verifier = TokenVerifier(issuer=ISSUER, audiences=audiences, keys=IssuerKeys(issuer), clock=lambda: NOW)
    token = issuer.mint("user-a", claims={"aud": RESOURCE, "client_id": "app-client-1", "token_use": "access"})
    assert verifier.verify(token).subject == "user-a"
    stranger = issuer.mint("user-a", claims={"aud": "https://elsewhere/mcp", "client_id": "other-client"})
    with pytest.raises(TokenRejected, match="another audience"):
        verifier.verify(stranger)


def test_scopes_in_the_list_form_are_read_too(issuer: LocalIssuer, verifier: TokenVerifier) -> None:
    token = issuer.mint("user-a", claims={"scope": None, "scp": ["forms", 7]})
    assert verifier.verify(token).scopes == frozenset({"forms"})


def test_a_token_within_the_leeway_after_expiry_is_still_accepted(issuer: LocalIssuer) -> None:
    token = issuer.mint("user-a", expires_in=-20)
    keys = IssuerKeys(issuer)
    assert TokenVerifier(issuer=ISSUER, audiences=[RESOURCE], keys=keys, clock=lambda: NOW).verify(token)


@pytest.mark.parametrize(
    ("mint", "reason"),
    [
        ({"expires_in": -31}, "the token has expired"),
        ({"claims": {"iss": "http://127.0.0.1:9/other"}}, "the token was issued by another issuer"),
        ({"audience": "http://127.0.0.1:9/elsewhere"}, "the token was issued for another audience"),
        ({"claims": {"token_use": "id"}}, "an ID token is not an access token"),
        ({"claims": {"nbf": NOW + 120}}, "the token is not valid yet"),
        ({"claims": {"sub": None}}, "the token has no 'sub' claim"),
        ({"claims": {"sub": ""}}, "the token's subject is empty"),
        (
            {"key": rsa.generate_private_key(public_exponent=65537, key_size=2048)},
            "the token's signature does not verify",
        ),
        ({"headers": {"kid": "not-a-key-of-the-issuer"}}, "the token is not signed by a key of the issuer"),
    ],
)
def test_a_token_that_fails_a_check_is_rejected_with_the_reason(
    issuer: LocalIssuer, verifier: TokenVerifier, mint: dict[str, Any], reason: str
) -> None:
    with pytest.raises(TokenRejected) as rejected:
        verifier.verify(issuer.mint("user-a", **mint))
    assert rejected.value.reason == reason


def test_an_unsigned_token_alg_none_is_rejected(verifier: TokenVerifier) -> None:
    token = _unsigned({"iss": ISSUER, "sub": "user-a", "aud": RESOURCE, "exp": NOW + 60})
    with pytest.raises(TokenRejected) as rejected:
        verifier.verify(token)
    assert rejected.value.reason == NOT_ACCEPTED


def test_a_token_signed_with_the_public_key_as_an_hmac_secret_is_rejected(
    issuer: LocalIssuer, verifier: TokenVerifier
) -> None:
    # PyJWT refuses to make such a token, so it is put together by hand, as an attacker would.
    header, body, _ = _unsigned({"iss": ISSUER, "sub": "user-a", "aud": RESOURCE, "exp": NOW + 60}, "HS256").split(".")
    secret = json.dumps(issuer.jwks()["keys"][0]).encode()
    mac = hmac.new(secret, f"{header}.{body}".encode(), hashlib.sha256).digest()
    token = f"{header}.{body}." + base64.urlsafe_b64encode(mac).decode().rstrip("=")
    with pytest.raises(TokenRejected) as rejected:
        verifier.verify(token)
    assert rejected.value.reason == NOT_ACCEPTED


@pytest.mark.parametrize("alg", ["ES256", "ES384"])
def test_a_token_naming_the_issuers_rsa_key_with_an_ec_algorithm_is_rejected_not_raised(
    issuer: LocalIssuer, verifier: TokenVerifier, alg: str
) -> None:
    # PyJWT raises TypeError when handed an RSA key for an EC algorithm: the verifier must refuse it first.
    _, body, signature = issuer.mint("user-a").split(".")
    forged = _part({"alg": alg, "kid": issuer.kid, "typ": "JWT"})
    with pytest.raises(TokenRejected) as rejected:
        verifier.verify(f"{forged}.{body}.{signature}")
    assert rejected.value.reason == "the token's algorithm does not match the issuer's key"


@pytest.mark.parametrize("alg", ["RS384", "RS512", "PS256"])
def test_a_token_signed_with_another_rsa_algorithm_of_the_issuers_key_is_accepted(
    issuer: LocalIssuer, verifier: TokenVerifier, alg: str
) -> None:
    token = jwt.encode(
        {"iss": ISSUER, "sub": "user-a", "aud": RESOURCE, "exp": int(NOW) + 60},
        serialization.load_pem_private_key(issuer.private_key_pem(), password=None),  # type: ignore[arg-type]
        algorithm=alg,
        headers={"kid": issuer.kid},
    )
    assert verifier.verify(token).subject == "user-a"


@pytest.mark.parametrize(
    ("claims", "reason"),
    [
        ({"exp": float("nan")}, "the token has expired"),
        ({"exp": float("inf")}, "the token has expired"),
        ({"exp": 10**400}, "the token has expired"),
        ({"exp": True}, "the token has expired"),
        ({"exp": "2100-01-01"}, "the token has expired"),
        ({"nbf": float("nan")}, "the token's 'nbf' claim is not a time"),
        ({"nbf": 10**400}, "the token's 'nbf' claim is not a time"),
        ({"nbf": "yesterday"}, "the token's 'nbf' claim is not a time"),
    ],
)
def test_a_signed_token_whose_times_are_not_finite_numbers_is_rejected_not_raised(
    issuer: LocalIssuer, verifier: TokenVerifier, claims: dict[str, Any], reason: str
) -> None:
    # PyJWT reads JSON as Python does (NaN, Infinity, huge integers): the issuer's own signature does not make
    # such a time usable.
    with pytest.raises(TokenRejected) as rejected:
        verifier.verify(issuer.mint("user-a", claims=claims))
    assert rejected.value.reason == reason


@pytest.mark.parametrize("garbage", ["", "abc", "a.b.c", "Bearer x", "e30.e30.e30"])
def test_a_token_that_is_not_a_jwt_is_rejected_as_malformed(verifier: TokenVerifier, garbage: str) -> None:
    with pytest.raises(TokenRejected) as rejected:
        verifier.verify(garbage)
    assert rejected.value.reason == "the token is malformed"


def test_missing_scopes_are_named_in_order(issuer: LocalIssuer, verifier: TokenVerifier) -> None:
    token = verifier.verify(issuer.mint("user-a", scopes=["chess"]))
    assert token.missing(["forms", "chess", "admin"]) == ["admin", "forms"]
