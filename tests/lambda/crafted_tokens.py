"""Hostile bearer tokens for the sign-in fuzz: headers, payloads and signatures an attacker can write, some of them
signed with the issuer's real key (so the checks after the signature see hostile claims too)."""

from __future__ import annotations

import base64
import json
import time
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from hypothesis import strategies as st
from widget_mcp.local.issuer import LocalIssuer

# What a token's header may claim: the accepted algorithms, the rest of RFC 7518, and text that would break a
# header it were echoed into (a quote, a backslash, a comma, non-Latin-1, a line break, NUL).
_ACCEPTED = ("RS256", "RS384", "RS512", "PS256", "ES256", "ES384")
_ALGS = (
    *_ACCEPTED,
    *("PS384", "PS512", "ES512", "ES256K", "EdDSA", "HS256", "HS384", "HS512", "none", "None", "NONE", ""),
    *('RS256"', 'x", error="injected', "RS256\\", "a,b=c", "é", "ℝS256", "\u2028", "RS256\r\nX-Injected: 1", "\x00"),
)
_HOSTILE_TEXT = st.text(
    st.characters(codec="utf-8") | st.sampled_from(['"', "\\", ",", "\r", "\n", "é", "€", "\U0001f600"]), max_size=30
)
_json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.sampled_from([10**400, -(10**400), 2**63])
    | st.floats(allow_nan=True, allow_infinity=True)
    | _HOSTILE_TEXT
)
_json_values = st.recursive(
    _json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_HOSTILE_TEXT, inner, max_size=3),
    max_leaves=8,
)
_SIGNABLE = {
    "RS256": (padding.PKCS1v15(), hashes.SHA256()),
    "RS384": (padding.PKCS1v15(), hashes.SHA384()),
    "RS512": (padding.PKCS1v15(), hashes.SHA512()),
    "PS256": (padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32), hashes.SHA256()),
}


@dataclass(frozen=True)
class CraftedToken:
    authorization: str
    # Signed with the issuer's real key by the algorithm its header names, which must be an RSA one of ours
    # and name the issuer's key: the only tokens the function may ever admit.
    genuinely_signed: bool


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _encode_json(value: Any) -> bytes:
    return json.dumps(value, allow_nan=True).encode("utf-8", "surrogatepass")


class TokenCorpus:
    """Draws tokens against one issuer; `claims` are those of a token the deployment would accept."""

    def __init__(self, issuer: LocalIssuer, claims: dict[str, Any]) -> None:
        key = serialization.load_pem_private_key(issuer.private_key_pem(), password=None)
        assert isinstance(key, rsa.RSAPrivateKey)
        self._key = key
        self._claims = claims
        self.kid = issuer.kid

    def valid_claims(self) -> dict[str, Any]:
        return {**self._claims, "exp": int(time.time()) + 3600}

    def sign(self, alg: str, signing_input: bytes) -> bytes:
        pad, digest = _SIGNABLE[alg]
        return self._key.sign(signing_input, pad, digest)

    def strategy(self) -> st.SearchStrategy[CraftedToken]:
        return _tokens(self)

    # --- the parts: each starts from what the issuer would sign and changes some of it -----------------------

    def header(self) -> st.SearchStrategy[Any]:
        extra = {
            "typ": st.sampled_from(["JWT", "at+jwt"]) | _json_values,
            "crit": st.sampled_from([["exp"], ["b64"], []]) | _json_values,
            "b64": st.booleans() | _json_values,
            "jku": st.just("http://127.0.0.1:1/jwks.json"),
            "x5u": st.just("file:///etc/passwd"),
            "jwk": _json_values,
            "zip": st.just("DEF"),
        }

        @st.composite
        def mutated(draw: st.DrawFn) -> dict[str, Any]:
            header: dict[str, Any] = {"alg": "RS256", "kid": self.kid, "typ": "at+jwt"}
            if draw(st.integers(0, 2)):
                header["alg"] = draw(st.sampled_from(_ALGS) | _json_values)
            if draw(st.integers(0, 3)) == 0:
                header["kid"] = draw(st.sampled_from(["unknown-key", ""]) | _json_values)
            for name in draw(st.lists(st.sampled_from(["alg", "kid", "typ"]), max_size=2, unique=True)):
                if draw(st.integers(0, 4)) == 0:
                    header.pop(name)
            if draw(st.integers(0, 4)) == 0:
                header |= draw(st.fixed_dictionaries({}, optional=extra))
            return header

        return st.one_of(*[mutated()] * 6, _json_values)

    def payload(self) -> st.SearchStrategy[Any]:
        @st.composite
        def mutated(draw: st.DrawFn) -> dict[str, Any]:
            claims = self.valid_claims()
            names = [*claims, "nbf", "iat", "aud", "scp", "jti", "cnf"]
            for name in draw(st.lists(st.sampled_from(names), max_size=3, unique=True)):
                if draw(st.integers(0, 3)) == 0:
                    claims.pop(name, None)
                else:
                    claims[name] = draw(_json_values)
            return claims

        return st.one_of(*[mutated()] * 4, _json_values)


@st.composite
def _tokens(draw: st.DrawFn, corpus: TokenCorpus) -> CraftedToken:
    header = draw(corpus.header())
    payload = draw(corpus.payload())
    encoded_header = bool(draw(st.integers(0, 14)))
    head = b64(_encode_json(header)) if encoded_header else draw(_HOSTILE_TEXT)
    body = b64(_encode_json(payload)) if draw(st.integers(0, 14)) else draw(_HOSTILE_TEXT)
    signing_input = f"{head}.{body}".encode("utf-8", "surrogatepass")
    alg = header.get("alg") if isinstance(header, dict) else None
    alg = alg if isinstance(alg, str) else None
    # Mostly a real signature (by the named algorithm where we can make one), so the checks behind it are reached.
    how = draw(st.sampled_from(["real"] * 4 + ["random", "empty", "text"]))
    genuine = False
    if how == "real":
        signed_as = alg if alg in _SIGNABLE else "RS256"
        signature = b64(corpus.sign(signed_as, signing_input))
        genuine = encoded_header and signed_as == alg and isinstance(header, dict) and header.get("kid") == corpus.kid
    elif how == "random":
        signature = b64(draw(st.binary(min_size=1, max_size=300)))
    elif how == "text":
        signature = draw(_HOSTILE_TEXT)
    else:
        signature = ""
    parts = [head, body, signature]
    if draw(st.integers(0, 19)) == 0:
        parts.append(draw(st.sampled_from(["", "e30", "x"])))  # a JWE-like fourth part, or a trailing dot
    if draw(st.integers(0, 19)) == 0:
        parts = parts[: draw(st.integers(0, 2))]
    token = ".".join(parts)
    scheme = draw(st.sampled_from(["Bearer"] * 24 + ["bearer", "BEARER", "Basic", "Bearer ", "", "DPoP"]))
    return CraftedToken(f"{scheme} {token}", genuine and len(parts) == 3 and scheme.strip().lower() == "bearer")
