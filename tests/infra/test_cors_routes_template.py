"""With sign-in and CORS origins, API Gateway sends a browser host's preflights of the OAuth discovery and the
registration route to the function (which answers the listed origins only), as it does for `/mcp`; the whole
app still synthesizes with cdk-nag clean."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from aws_cdk.assertions import Template
from synth_support import NO_BUNDLING, Synthesized

from infra.app import build_app

INSPECTOR = "http://localhost:6274"
PREFLIGHTS = {"OPTIONS /mcp", "OPTIONS /.well-known/{proxy+}", "OPTIONS /oauth/register"}


@pytest.fixture(scope="module")
def browser_sign_in(tmp_path_factory: pytest.TempPathFactory, fake_bundles: Path) -> Synthesized:
    """The real app with `-c signIn=true -c corsOrigins=…`, synthesized (cdk-nag runs in synth and raises on any
    unacknowledged finding)."""
    outdir = tmp_path_factory.mktemp("cdk.out.browser-sign-in")
    context = {
        **NO_BUNDLING,
        "signIn": "true",
        "signInCallbackUrls": f"{INSPECTOR}/oauth/callback",
        "corsOrigins": INSPECTOR,
    }
    app, stack = build_app(outdir=str(outdir), context=context, bundle_dir=fake_bundles)
    app.synth()
    return Synthesized(app, stack, Template.from_stack(stack), outdir)


def _route_keys(synthesized: Synthesized) -> set[str]:
    return {r["Properties"]["RouteKey"] for r in synthesized.resources("AWS::ApiGatewayV2::Route").values()}


def _target(synthesized: Synthesized, key: str) -> Any:
    (route,) = [
        r for r in synthesized.resources("AWS::ApiGatewayV2::Route").values() if r["Properties"]["RouteKey"] == key
    ]
    return route["Properties"]["Target"]


def test_preflights_of_discovery_and_registration_reach_the_function_like_mcps(browser_sign_in: Synthesized) -> None:
    assert _route_keys(browser_sign_in) >= PREFLIGHTS
    mcp = _target(browser_sign_in, "POST /mcp")
    for key in PREFLIGHTS:
        assert _target(browser_sign_in, key) == mcp, key
    (api,) = browser_sign_in.resources("AWS::ApiGatewayV2::Api").values()
    assert "CorsConfiguration" not in api["Properties"]  # API Gateway never answers a preflight itself


def test_the_registration_preflight_is_throttled_like_registration(browser_sign_in: Synthesized) -> None:
    (stage,) = browser_sign_in.resources("AWS::ApiGatewayV2::Stage").values()
    settings = stage["Properties"]["RouteSettings"]
    assert settings["OPTIONS /oauth/register"] == settings["POST /oauth/register"]


def test_without_cors_origins_sign_in_routes_get_no_preflight_route(with_sign_in: Synthesized) -> None:
    keys = _route_keys(with_sign_in)
    assert {"GET /.well-known/{proxy+}", "POST /oauth/register"} <= keys
    assert not PREFLIGHTS & keys
