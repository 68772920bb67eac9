"""Host tokens: what a host integration signs for its user, and every way a token is refused."""

from __future__ import annotations

import base64
import json

import pytest
from widget_mcp.auth.host_tokens import MAX_LIFETIME_SECONDS, HostTokenRejected, HostTokens, sign

SECRET = "s" * 40
NOW = 1_800_000_000


def _b64(data: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def test_a_token_signed_with_the_shared_secret_names_its_host_user_and_scope() -> None:
    token = sign(SECRET, "openwebui", "user-1", "widget", 600, now=NOW)
    user = HostTokens(SECRET).verify(token, now=NOW + 10)
    assert (user.issuer, user.subject, user.scope, user.principal_subject) == (
        "openwebui",
        "user-1",
        "widget",
        "openwebui/user-1",
    )


@pytest.mark.parametrize(
    ("token", "reason"),
    [
        (sign("other-secret-" * 4, "openwebui", "user-1", "call", 600, now=NOW), "signature"),
        (sign(SECRET, "openwebui", "user-1", "call", 600, now=NOW - 700), "expired"),
        (sign(SECRET, "openwebui", "user-1", "admin", 600, now=NOW), "scope"),  # type: ignore[arg-type]
        (sign(SECRET, "openwebui", "user 1/../x", "call", 600, now=NOW), "plain names"),
        (sign(SECRET, "openwebui", "user-1\n", "call", 600, now=NOW), "plain names"),
        (sign(SECRET, "openwebui", "user-1", "call", MAX_LIFETIME_SECONDS + 1, now=NOW), "lifetime"),
        (sign(SECRET, "openwebui", "user-1", "call", 600, now=NOW + 3600), "lifetime"),
        ("a.b", "compact JWT"),
        ("x" * 3000, "too long"),
        ("!!.??.**", "base64url"),
    ],
)
def test_forged_expired_out_of_scope_or_malformed_tokens_are_refused_with_the_reason(token: str, reason: str) -> None:
    with pytest.raises(HostTokenRejected, match=reason):
        HostTokens(SECRET).verify(token, now=NOW)


def test_a_token_whose_header_names_another_algorithm_is_refused_even_when_its_mac_matches() -> None:
    import hashlib
    import hmac

    head, body = (
        _b64({"alg": "none", "typ": "JWT"}),
        _b64({"iss": "openwebui", "sub": "u", "scope": "call", "iat": NOW, "exp": NOW + 60}),
    )
    mac = base64.urlsafe_b64encode(hmac.new(SECRET.encode(), f"{head}.{body}".encode(), hashlib.sha256).digest())
    with pytest.raises(HostTokenRejected, match="HS256"):
        HostTokens(SECRET).verify(f"{head}.{body}.{mac.rstrip(b'=').decode()}", now=NOW)
