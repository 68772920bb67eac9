"""Building sign-in from settings: what the deployed function does at start when AUTH_MODE=oauth."""

from __future__ import annotations

import sys

import pytest
from widget_mcp.auth.setup import build_sign_in
from widget_mcp.settings import Settings

MCP_URL = "https://abc.execute-api.eu-west-1.amazonaws.com/mcp"
OAUTH = {
    "auth_mode": "oauth",
    "oauth_issuer": "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_example",
    "oauth_audience": f"client-1,{MCP_URL}",
}


def test_the_metadata_names_the_configured_resource_whichever_host_was_reached() -> None:
    # The stack configures OAUTH_RESOURCE as the Cognito resource server's identifier: it must not vary by Host.
    settings = Settings(table_name="state", oauth_resource=MCP_URL, **OAUTH)
    sign_in = build_sign_in(settings, {"chess_move": (f"{MCP_URL}/chess",)})
    metadata = sign_in.gate.metadata({"host": "elsewhere.example"})
    assert (metadata["resource"], metadata["scopes_supported"]) == (MCP_URL, [f"{MCP_URL}/chess"])
    assert sign_in.facade is None


def test_without_the_token_libraries_sign_in_fails_at_start_naming_the_deploy_flag(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The asset built without `-c signIn=true` has no PyJWT: setting AUTH_MODE by hand must fail loudly.
    monkeypatch.delitem(sys.modules, "widget_mcp.auth.jwt_verifier", raising=False)
    monkeypatch.setitem(sys.modules, "jwt", None)
    with pytest.raises(RuntimeError, match=r"needs PyJWT with cryptography \(jwt is missing\).*-c signIn=true"):
        build_sign_in(Settings(table_name="state", **OAUTH), {"chess_move": ("chess",)})


def test_pyjwt_without_cryptography_also_fails_at_start(monkeypatch: pytest.MonkeyPatch) -> None:
    # PyJWT alone imports, then refuses every RS256 token as if it were forged.
    monkeypatch.setitem(sys.modules, "cryptography.hazmat.primitives.asymmetric.rsa", None)
    with pytest.raises(RuntimeError, match=r"needs PyJWT with cryptography \(cryptography\..* is missing\)"):
        build_sign_in(Settings(table_name="state", **OAUTH), {"chess_move": ("chess",)})


def test_a_missing_module_of_our_own_is_not_reported_as_a_deploy_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "widget_mcp.auth.jwt_verifier", None)
    with pytest.raises(ModuleNotFoundError, match=r"widget_mcp\.auth\.jwt_verifier"):
        build_sign_in(Settings(table_name="state", **OAUTH), {"chess_move": ("chess",)})
