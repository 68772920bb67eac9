"""`-c oauthCallbacks=…`: the hosts' callbacks by name, as the Cognito app client lists them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Template
from widget_mcp.cdk.config import ConfigError, ServiceOptions
from widget_mcp.cdk.oauth_callbacks import CHATGPT_LEGACY, CLAUDE, PRESETS
from widget_mcp.cdk.sign_in import SignIn


def _client_callbacks(bare_stack: Callable[..., cdk.Stack], **context: Any) -> list[str]:
    stack = bare_stack(**context)
    config = ServiceOptions.from_context(stack.node)
    sign_in = SignIn(
        stack,
        "SignIn",
        domain_prefix="widget-mcp-test",
        callback_urls=config.callback_urls,
        removal_policy=cdk.RemovalPolicy.DESTROY,
    )
    sign_in.protect("https://abc.execute-api.eu-west-1.amazonaws.com/mcp")
    (client,) = Template.from_stack(stack).find_resources("AWS::Cognito::UserPoolClient").values()
    urls: list[str] = client["Properties"]["CallbackURLs"]
    return urls


def test_without_presets_the_client_lists_chatgpts_legacy_callback_as_before(bare_stack: Any) -> None:
    assert _client_callbacks(bare_stack) == [CHATGPT_LEGACY]


def test_the_claude_preset_lists_both_of_claudes_callbacks(bare_stack: Any) -> None:
    assert _client_callbacks(bare_stack, oauthCallbacks="claude") == [
        "https://claude.ai/api/mcp/auth_callback",
        "https://claude.com/api/mcp/auth_callback",
    ]


def test_chatgpt_with_its_callback_id_lists_the_per_app_callback_beside_the_legacy_one(bare_stack: Any) -> None:
    assert _client_callbacks(bare_stack, oauthCallbacks="chatgpt:FLLrQdlez6Uf,claude") == [
        CHATGPT_LEGACY,
        "https://chatgpt.com/connector/oauth/FLLrQdlez6Uf",
        *CLAUDE,
    ]


def test_listed_callbacks_follow_the_presets_and_a_repeat_is_listed_once(bare_stack: Any) -> None:
    urls = _client_callbacks(
        bare_stack, oauthCallbacks=["chatgpt"], signInCallbackUrls=f"http://localhost:6274/cb,{CHATGPT_LEGACY}"
    )
    assert urls == [CHATGPT_LEGACY, "http://localhost:6274/cb"]


def test_every_preset_names_only_https_callbacks() -> None:
    assert all(url.startswith("https://") for urls in PRESETS.values() for url in urls)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("gemini", r"unknown OAuth callback preset 'gemini'; known: chatgpt, claude"),
        ("claude:abc", r"only chatgpt takes a callback id"),
        ("chatgpt:", r"a ChatGPT callback id is 1-64"),
        ("chatgpt:../evil", r"a ChatGPT callback id is 1-64"),
    ],
)
def test_a_bad_preset_is_refused_at_synth_naming_the_key(bare_stack: Any, value: str, message: str) -> None:
    with pytest.raises(ConfigError, match=rf"^oauthCallbacks: {message}"):
        ServiceOptions.from_context(bare_stack(oauthCallbacks=value).node)
