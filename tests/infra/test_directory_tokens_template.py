"""`-c openaiAppsChallenge=…` and `-c mcpRegistryAuth=…`: each token reaches the function's environment (where the
settings serve it at its well-known path, which API Gateway routes to the function); unset, none is there; a token
that cannot be served as given fails synth in one sentence."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Template
from synth_support import NO_BUNDLING, function_env
from widget_mcp.cdk.config import ConfigError, ServiceOptions
from widget_mcp.cdk.publish_context import DIRECTORY_TOKENS

from infra.app import build_app

TOKENS = {"openaiAppsChallenge": "oai-challenge-3f9a1c0d5e", "mcpRegistryAuth": "v=MCPv1; k=ed25519; p=AAAA="}


def test_the_stack_hands_each_token_to_the_function_and_routes_the_well_known_paths_to_it(
    tmp_path: Path, fake_bundles: Path
) -> None:
    _app, stack = build_app(outdir=str(tmp_path), context={**NO_BUNDLING, **TOKENS}, bundle_dir=fake_bundles)
    template = Template.from_stack(stack)
    env = function_env(template)
    assert {key: env[variable] for key, variable in DIRECTORY_TOKENS.items()} == TOKENS
    routes = {r["Properties"]["RouteKey"] for r in template.find_resources("AWS::ApiGatewayV2::Route").values()}
    assert "GET /.well-known/{proxy+}" in routes


def test_without_the_context_no_token_is_in_the_functions_environment(synthesized: Any) -> None:
    assert not set(DIRECTORY_TOKENS.values()) & set(function_env(synthesized.template))


@pytest.mark.parametrize("key", sorted(DIRECTORY_TOKENS))
def test_a_token_that_is_not_one_printable_line_fails_synth_naming_its_key(
    bare_stack: Callable[..., cdk.Stack], key: str
) -> None:
    with pytest.raises(ConfigError, match=f"^{key} must be one line of printable ASCII"):
        ServiceOptions.from_context(bare_stack(**{key: "two\nlines"}).node)
