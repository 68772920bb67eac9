"""Optional sign-in: the Cognito pool, its public PKCE client for ChatGPT, and the function wired to it."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk.assertions import Match
from synth_support import Synthesized
from widget_mcp.cdk.config import ConfigError, ServiceOptions


def _env(synthesized: Synthesized) -> dict[str, Any]:
    (fn,) = [
        r
        for r in synthesized.resources("AWS::Lambda::Function").values()
        if r["Properties"].get("Handler") == "widget_mcp.handler.handler"
    ]
    variables: dict[str, Any] = fn["Properties"]["Environment"]["Variables"]
    return variables


def test_without_the_flag_there_is_no_user_pool_and_the_function_runs_without_sign_in(
    synthesized: Synthesized,
) -> None:
    assert synthesized.resources("AWS::Cognito::UserPool") == {}
    assert "AUTH_MODE" not in _env(synthesized)


def test_the_app_client_is_public_with_the_code_grant_and_chatgpts_redirect(with_sign_in: Synthesized) -> None:
    (client,) = with_sign_in.resources("AWS::Cognito::UserPoolClient").values()
    props = client["Properties"]
    assert (props["GenerateSecret"], props["AllowedOAuthFlows"]) == (False, ["code"])
    assert props["CallbackURLs"] == [
        "https://chatgpt.com/connector_platform_oauth_redirect",
        "http://localhost:6274/oauth/callback",
    ]
    assert props["PreventUserExistenceErrors"] == "ENABLED"
    # `<resource server>/<scope>`, the identifier resolved at deploy time
    assert [scope["Fn::Join"][1][-1] for scope in props["AllowedOAuthScopes"]] == ["/chess", "/forms"]


def test_the_pool_signs_in_by_email_with_a_strong_password_policy(with_sign_in: Synthesized) -> None:
    with_sign_in.template.has_resource_properties(
        "AWS::Cognito::UserPool",
        {
            "UsernameAttributes": ["email"],
            "Policies": {"PasswordPolicy": Match.object_like({"MinimumLength": 12, "RequireSymbols": True})},
        },
    )
    with_sign_in.template.resource_count_is("AWS::Cognito::UserPoolDomain", 1)


def _joined(value: Any) -> str:
    """A synthesized Fn::Join as text, each token written as its intrinsic (`{Fn::GetAtt:[...]}`)."""
    if isinstance(value, str):
        return value
    ((name, argument),) = value.items()
    if name != "Fn::Join":
        return f"{{{name}:{argument}}}"
    separator, parts = argument
    return separator.join(_joined(p) for p in parts)


def _api_id(synthesized: Synthesized) -> str:
    (api_id,) = synthesized.resources("AWS::ApiGatewayV2::Api")
    return str(api_id)


def test_the_resource_server_is_named_for_the_mcp_url_clients_send_as_their_resource(
    with_sign_in: Synthesized,
) -> None:
    # ChatGPT sends the protected-resource metadata's `resource` to Cognito (RFC 8707); managed login binds a
    # token to it only when it names a resource server, so the identifier, the advertised resource and the
    # scope prefix are one URL.
    (server,) = with_sign_in.resources("AWS::Cognito::UserPoolResourceServer").values()
    identifier = _joined(server["Properties"]["Identifier"])
    assert identifier == "{Fn::GetAtt:" + str([_api_id(with_sign_in), "ApiEndpoint"]) + "}/mcp"
    env = _env(with_sign_in)
    assert _joined(env["OAUTH_RESOURCE"]) == identifier
    assert _joined(env["OAUTH_SCOPE_PREFIX"]) == f"{identifier}/"
    (mcp_url,) = [o["Value"] for k, o in with_sign_in.template.to_json()["Outputs"].items() if k.startswith("McpUrl")]
    assert _joined(mcp_url) == identifier
    (domain,) = with_sign_in.resources("AWS::Cognito::UserPoolDomain").values()
    assert domain["Properties"]["ManagedLoginVersion"] == 2
    (style,) = with_sign_in.resources("AWS::Cognito::ManagedLoginBranding").values()
    assert style["Properties"]["UseCognitoProvidedValues"] is True


def test_the_function_verifies_cognito_tokens_and_serves_registration(with_sign_in: Synthesized) -> None:
    env = _env(with_sign_in)
    assert env["AUTH_MODE"] == "oauth"
    # the client id (Cognito's `client_id` claim) and the resource (its `aud` when bound to one)
    client_id, resource = _joined(env["OAUTH_AUDIENCE"]).split(",", 1)
    assert client_id == _joined(env["OAUTH_REGISTRATION_CLIENT_ID"])
    assert resource == _joined(env["OAUTH_RESOURCE"])
    assert env["OAUTH_ISSUER"]["Fn::Join"][1][0] == "https://cognito-idp."
    assert env["OAUTH_REDIRECT_URIS"].startswith("https://chatgpt.com/connector_platform_oauth_redirect,")
    keys = {r["Properties"]["RouteKey"] for r in with_sign_in.resources("AWS::ApiGatewayV2::Route").values()}
    assert "POST /oauth/register" in keys
    # client id metadata documents: the endpoint's own authorize and token routes, throttled as the side routes
    assert {"GET /oauth/authorize", "POST /oauth/token"} <= keys
    (stage,) = with_sign_in.resources("AWS::ApiGatewayV2::Stage").values()
    settings = stage["Properties"]["RouteSettings"]
    assert settings["GET /oauth/authorize"] == settings["POST /oauth/token"] == settings["GET /healthz"]
    # a user's export and erasure outside any host: routed to the function, throttled as the side routes too
    assert {"GET /account/data", "DELETE /account/data"} <= keys
    assert settings["GET /account/data"] == settings["DELETE /account/data"] == settings["GET /healthz"]


@pytest.mark.parametrize("prefix", ["Widget", "my-aws-app", "amazon-login", "-x", "a" * 64])
def test_a_bad_sign_in_domain_prefix_is_refused(bare_stack: Any, prefix: str) -> None:
    with pytest.raises(ConfigError, match=r"^signInDomainPrefix must be"):
        ServiceOptions.from_context(bare_stack(signInDomainPrefix=prefix).node)
