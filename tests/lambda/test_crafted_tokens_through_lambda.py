"""Hostile bearer tokens through `widget_mcp.handler.handler` with sign-in on (a `-c signIn=true` deployment's
settings, its issuer's keys served over loopback): whatever the token's header, payload or signature, the answer
is a 401 (or in band, for ChatGPT) with a well-formed challenge that repeats nothing the caller wrote, never a 5xx,
and only a token the issuer really signed is ever admitted."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from apigw_events import Context, Handler, rpc, v1, v2
from auth_challenges import parse_bearer_challenge
from cognito_sign_in import HOST, ISSUER, cognito_sign_in
from crafted_tokens import CraftedToken, TokenCorpus, b64
from fastapi import FastAPI
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from servers import serve
from widget_mcp.local.issuer import LocalIssuer
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.wiring import build_core

CLIENT = "client-1"  # the app client cognito_sign_in accepts
MODERN = "2026-07-28"
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
# Seeded and bounded like tests/fuzz (its "ci" profile): the same cases on every run.
FUZZ = settings(
    max_examples=300,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)


@dataclass
class SignedIn:
    handler: Handler
    issuer: LocalIssuer
    corpus: TokenCorpus
    protected: dict[str, tuple[str, ...]]
    jwks_fetches: list[int]


@pytest.fixture(scope="module")
def signed_in(handler: Handler) -> Iterator[SignedIn]:
    """The real handler serving a sign-in deployment whose issuer publishes its keys on a loopback port."""
    import widget_mcp.handler as module

    issuer = LocalIssuer(ISSUER, audience=CLIENT)
    fetches: list[int] = []
    keys = FastAPI()

    @keys.get("/.well-known/jwks.json")
    def jwks() -> dict[str, Any]:
        fetches.append(1)
        return issuer.jwks()

    with serve(keys) as url, pytest.MonkeyPatch.context() as patch:
        settings = cognito_sign_in(
            "https://host.example.com/oauth/callback",
            table_name="lambda-test-state",
            oauth_jwks_url=f"{url}/.well-known/jwks.json",
        )
        core = build_core(settings, store=InMemoryDocumentStore())
        protected = dict(core.runtime.protected_tools())
        patch.setattr(module, "core", core)
        claims = {
            "iss": ISSUER,
            "sub": "fuzz-user",
            "client_id": CLIENT,
            "token_use": "access",
            "scope": " ".join(sorted({s for scopes in protected.values() for s in scopes})),
        }
        yield SignedIn(handler, issuer, TokenCorpus(issuer, claims), protected, fetches)


def _message(tool: str | None, *, modern: bool, chatgpt: bool) -> dict[str, Any]:
    if tool is None:  # a method every caller may use (`ping` is gone from the 2026-07-28 revision)
        params: dict[str, Any] = {}
        message = rpc("tools/list" if modern else "ping", params)
    else:
        params = {"name": tool, "arguments": {}}
        message = rpc("tools/call", params)
    meta: dict[str, Any] = {**(ENVELOPE if modern else {}), **({"openai/subject": "u1"} if chatgpt else {})}
    if meta:
        params["_meta"] = meta
    return message


def _send(
    signed_in: SignedIn,
    authorization: str,
    message: dict[str, Any],
    *,
    modern: bool,
    rest: bool = False,
    proto: str = "https",
) -> dict[str, Any]:
    headers = {"Authorization": authorization, "X-Forwarded-Proto": proto}
    if modern:
        headers |= {"MCP-Protocol-Version": MODERN, "Mcp-Method": message["method"]}
        if message["method"] == "tools/call":
            headers["Mcp-Name"] = message["params"]["name"]
    if rest:
        event = v1(message, headers=headers)
    else:
        event = v2(message, headers={name.lower(): value for name, value in headers.items()})
    return signed_in.handler(event, Context())


def _expected_scheme(proto: str) -> str:
    first = proto.split(",")[0].strip().lower()
    return first if first in ("http", "https") else "https"


def _challenges(reply: dict[str, Any]) -> list[str]:
    """Every challenge the reply carries: the HTTP header (either event format), and the in-band one of a tool
    error result."""
    found = [v for k, v in (reply.get("headers") or {}).items() if k.lower() == "www-authenticate"]
    for name, values in (reply.get("multiValueHeaders") or {}).items():
        if name.lower() == "www-authenticate":
            found.extend(v for v in values if v not in found)
    body = json.loads(reply["body"]) if reply.get("body") else {}
    result = body.get("result") if isinstance(body, dict) else None
    if isinstance(result, dict):
        found.extend((result.get("_meta") or {}).get("mcp/www_authenticate", []))
    return found


def _admitted(reply: dict[str, Any]) -> bool:
    return reply["statusCode"] == 200 and not _challenges(reply)


@given(data=st.data())
@FUZZ
def test_no_crafted_token_gets_a_5xx_or_an_ill_formed_challenge_and_only_the_issuers_own_get_in(
    signed_in: SignedIn, data: st.DataObject
) -> None:
    token: CraftedToken = data.draw(signed_in.corpus.strategy(), label="token")
    tool = data.draw(st.none() | st.sampled_from(sorted(signed_in.protected)), label="tool")
    modern, rest = data.draw(st.booleans(), label="modern"), data.draw(st.booleans(), label="rest")
    chatgpt = tool is not None and data.draw(st.booleans(), label="chatgpt")
    proto = data.draw(st.sampled_from(["https", "https", "http", 'https"', "ftp", "https, http", "é"]), label="proto")
    message = _message(tool, modern=modern, chatgpt=chatgpt)
    reply = _send(signed_in, token.authorization, message, modern=modern, rest=rest, proto=proto)

    assert reply["statusCode"] < 500, reply
    body = json.loads(reply["body"])
    assert "Traceback" not in reply["body"]
    challenges = _challenges(reply)
    if reply["statusCode"] in (401, 403):
        assert challenges, reply
    metadata = f"{_expected_scheme(proto)}://{HOST}/.well-known/oauth-protected-resource/mcp"
    for challenge in challenges:
        params = parse_bearer_challenge(challenge)
        assert params["resource_metadata"] == metadata, challenge
        assert params.get("error") in (None, "invalid_request", "invalid_token", "insufficient_scope"), challenge
    if _admitted(reply):
        assert token.genuinely_signed, (token, body)


@pytest.mark.parametrize("alg", ["ES256", "ES384"])
def test_a_token_naming_the_issuers_key_with_an_ec_algorithm_gets_401_even_for_ping(
    signed_in: SignedIn, alg: str
) -> None:
    _, body, signature = signed_in.issuer.mint("user-a").split(".")
    forged = f"{b64(json.dumps({'alg': alg, 'kid': signed_in.issuer.kid}).encode())}.{body}.{signature}"
    for modern in (False, True):
        reply = _send(signed_in, f"Bearer {forged}", _message(None, modern=modern, chatgpt=False), modern=modern)
        assert reply["statusCode"] == 401, reply
        params = parse_bearer_challenge(reply["headers"]["www-authenticate"])
        assert params["error"] == "invalid_token"
        assert params["error_description"] == "The token's algorithm does not match the issuer's key."


def _valid(signed_in: SignedIn, **header: Any) -> str:
    """A token the deployment accepts, with `header` merged into its JOSE header (and signed as it says)."""
    head = b64(json.dumps({"alg": "RS256", "kid": signed_in.issuer.kid, **header}).encode())
    body = b64(json.dumps(signed_in.corpus.valid_claims()).encode())
    alg = header.get("alg", "RS256")
    return f"{head}.{body}.{b64(signed_in.corpus.sign(alg, f'{head}.{body}'.encode()))}"


def test_the_issuers_own_token_gets_in_in_every_era_so_the_fuzz_oracle_is_not_vacuous(signed_in: SignedIn) -> None:
    tool = sorted(signed_in.protected)[0]
    for modern in (False, True):
        for alg in ("RS256", "PS256"):
            token = f"Bearer {_valid(signed_in, alg=alg)}"
            for message in (_message(None, modern=modern, chatgpt=False), _message(tool, modern=modern, chatgpt=True)):
                reply = _send(signed_in, token, message, modern=modern)
                assert _admitted(reply), reply


@pytest.mark.parametrize(
    "alg",
    ['RS256", error="insufficient_scope', "RS256\\", "ℝS256", "é", "RS256\r\nSet-Cookie: a=b", "\u2028"],
)
def test_an_algorithm_name_written_to_break_the_challenge_is_never_repeated_in_it(
    signed_in: SignedIn, alg: str
) -> None:
    head = b64(json.dumps({"alg": alg, "kid": signed_in.issuer.kid}).encode())
    body = b64(json.dumps(signed_in.corpus.valid_claims()).encode())
    token = f"Bearer {head}.{body}.{b64(b'x' * 256)}"
    reply = _send(signed_in, token, _message(None, modern=False, chatgpt=False), modern=False)
    assert reply["statusCode"] == 401
    challenge = reply["headers"]["www-authenticate"]
    params = parse_bearer_challenge(challenge)
    assert params["error"] == "invalid_token"
    assert params["error_description"] == (
        "The token is not signed with an accepted algorithm (RS256, RS384, RS512, ES256, ES384, PS256)."
    )
    assert alg not in challenge


@pytest.mark.parametrize("proto", ['https", error="injected', "javascript", "é", "https, http"])
def test_a_forwarded_scheme_other_than_http_or_https_never_reaches_the_challenge(
    signed_in: SignedIn, proto: str
) -> None:
    reply = _send(signed_in, "Bearer x.y.z", _message(None, modern=False, chatgpt=False), modern=False, proto=proto)
    assert reply["statusCode"] == 401
    params = parse_bearer_challenge(reply["headers"]["www-authenticate"])
    assert params["resource_metadata"] == f"https://{HOST}/.well-known/oauth-protected-resource/mcp"


def test_tokens_naming_unknown_keys_do_not_make_each_request_fetch_the_issuers_keys(signed_in: SignedIn) -> None:
    _send(signed_in, f"Bearer {_valid(signed_in)}", _message(None, modern=False, chatgpt=False), modern=False)
    before = len(signed_in.jwks_fetches)
    for n in range(20):
        token = f"Bearer {_valid(signed_in, kid=f'rotated-{n}')}"
        reply = _send(signed_in, token, _message(None, modern=False, chatgpt=False), modern=False)
        assert parse_bearer_challenge(reply["headers"]["www-authenticate"])["error"] == "invalid_token"
    # PyJWT refetches the set for an unknown `kid` (a rotation) at most once per cooldown (30 s).
    assert len(signed_in.jwks_fetches) - before <= 1
