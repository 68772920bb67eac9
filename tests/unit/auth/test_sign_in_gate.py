"""The sign-in gate's decisions: who goes on as whom, and the exact challenge for everyone else."""

from __future__ import annotations

from typing import Any

import pytest
from auth_support import ISSUER, NOW, IssuerKeys
from widget_mcp.auth.gate import Admitted, Refused, SignInGate, SignInPolicy
from widget_mcp.auth.jwt_verifier import TokenVerifier
from widget_mcp.local.issuer import LocalIssuer

RESOURCE = "https://mcp.example.com/mcp"
HOST = {"host": "mcp.example.com"}
METADATA = 'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"'


@pytest.fixture
def issuer() -> LocalIssuer:
    return LocalIssuer(ISSUER, audience=RESOURCE, scopes=("chess", "forms"), clock=lambda: NOW)


@pytest.fixture
def gate(issuer: LocalIssuer) -> SignInGate:
    policy = SignInPolicy(
        protected={"chess_move": ("chess",), "ask_question": ("forms",)},
        scopes_supported=("chess", "forms"),
        authorization_servers=(ISSUER,),
    )
    verifier = TokenVerifier(issuer=ISSUER, audiences=[RESOURCE], keys=IssuerKeys(issuer), clock=lambda: NOW)
    return SignInGate(policy, verifier)


def call(tool: str, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": tool, "arguments": {}}
    if meta is not None:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}


def bearer(token: str) -> dict[str, str]:
    return {**HOST, "authorization": f"Bearer {token}"}


def test_a_public_tool_or_any_other_method_goes_on_without_a_token(gate: SignInGate) -> None:
    assert gate.check(HOST, call("display_demo")) == Admitted(None)
    assert gate.check(HOST, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}) == Admitted(None)


def test_a_protected_tool_without_a_token_is_challenged_with_401_naming_the_metadata_and_scope(
    gate: SignInGate,
) -> None:
    assert gate.check(HOST, call("chess_move")) == Refused(
        401, None, "Sign in to use this tool.", f'Bearer {METADATA}, scope="chess"'
    )


def test_a_chatgpt_call_is_challenged_in_band_so_chatgpt_can_offer_linking(gate: SignInGate) -> None:
    refused = gate.check(HOST, call("chess_move", {"openai/subject": "u1", "openai/locale": "en"}))
    assert isinstance(refused, Refused)
    assert refused.in_band


def test_a_valid_token_goes_on_as_its_subject_whatever_openai_subject_claims(
    gate: SignInGate, issuer: LocalIssuer
) -> None:
    verdict = gate.check(bearer(issuer.mint("user-a")), call("chess_move", {"openai/subject": "user-b"}))
    assert verdict == Admitted("user-a")


def test_an_invalid_token_is_refused_with_401_even_for_a_public_tool(gate: SignInGate, issuer: LocalIssuer) -> None:
    verdict = gate.check(bearer(issuer.mint("user-a", expires_in=-3600)), call("display_demo"))
    assert verdict == Refused(
        401,
        "invalid_token",
        "The token has expired.",
        f'Bearer {METADATA}, error="invalid_token", error_description="The token has expired."',
    )


def test_a_token_without_the_tools_scope_is_refused_with_403_insufficient_scope(
    gate: SignInGate, issuer: LocalIssuer
) -> None:
    verdict = gate.check(bearer(issuer.mint("user-a", scopes=["chess"])), call("ask_question"))
    assert isinstance(verdict, Refused)
    assert (verdict.status, verdict.error) == (403, "insufficient_scope")
    assert verdict.www_authenticate.endswith('scope="forms"')


@pytest.mark.parametrize("header", ["Basic dXNlcjpwYXNz", "Bearer", "Bearer   ", "token abc"])
def test_an_authorization_header_that_is_not_a_bearer_token_is_refused(gate: SignInGate, header: str) -> None:
    verdict = gate.check({**HOST, "authorization": header}, call("display_demo"))
    assert isinstance(verdict, Refused)
    assert (verdict.status, verdict.error) == (401, "invalid_request")


def test_the_metadata_names_this_resource_its_issuer_scopes_and_header_bearer(gate: SignInGate) -> None:
    assert gate.metadata(HOST) == {
        "resource": RESOURCE,
        "authorization_servers": [ISSUER],
        "scopes_supported": ["chess", "forms"],
        "bearer_methods_supported": ["header"],
        "resource_name": "widget-mcp",
    }


def test_on_loopback_the_resource_is_plain_http(gate: SignInGate) -> None:
    assert gate.resource({"host": "127.0.0.1:8000"}) == "http://127.0.0.1:8000/mcp"
    assert gate.metadata_url({"host": "127.0.0.1:8000"}) == (
        "http://127.0.0.1:8000/.well-known/oauth-protected-resource/mcp"
    )


@pytest.mark.parametrize("proto", ['https", error="x', "ftp", "é", ""])
def test_a_forwarded_scheme_that_is_not_http_or_https_is_ignored(gate: SignInGate, proto: str) -> None:
    headers = {**HOST, "x-forwarded-proto": proto}
    assert gate.resource(headers) == RESOURCE
    verdict = gate.check(headers, call("chess_move"))
    assert isinstance(verdict, Refused)
    assert verdict.www_authenticate.startswith(f"Bearer {METADATA}, ")


class _Choking:
    """A verifier whose JOSE library fails in a way nobody foresaw."""

    def verify(self, token: str) -> Any:
        raise TypeError("Expecting a PEM-formatted key.")


def test_a_token_the_verifier_chokes_on_is_refused_as_invalid_never_raised(
    caplog: pytest.LogCaptureFixture,
) -> None:
    policy = SignInPolicy(protected={}, scopes_supported=(), authorization_servers=(ISSUER,))
    verdict = SignInGate(policy, _Choking()).check(bearer("a.b.c"), call("display_demo"))
    assert verdict == Refused(
        401,
        "invalid_token",
        "The token could not be verified.",
        f'Bearer {METADATA}, error="invalid_token", error_description="The token could not be verified."',
    )
    assert "could not be verified" in caplog.text
