"""`-c resumableStreams=on|off`: on (the default), the function gets RESUMABLE_STREAMS=true and GET /mcp (where a
2025-11-25 client resumes a call that asks for input) is throttled like the calls it resumes; off, the function gets
RESUMABLE_STREAMS=false and GET /mcp still reaches it, which answers 405 as the MCP contract says. Both synthesize
with cdk-nag clean and pass cfn-lint."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Template
from cfnlint.api import ManualArgs, lint_file
from synth_support import NO_BUNDLING, Synthesized
from test_cdk_nag_and_cfn_lint import CFN_LINT_IGNORED
from widget_mcp.cdk.config import ConfigError, ServiceOptions
from widget_mcp.settings import Settings
from widget_mcp.transport.resumption import FIRST_RETRY_MS, LONGEST_RETRY_MS

from infra.app import build_app

ROOT = Path(__file__).resolve().parents[2]
HANDLER = "widget_mcp.handler.handler"


@pytest.fixture(scope="module")
def switched_off(tmp_path_factory: pytest.TempPathFactory, fake_bundles: Path) -> Synthesized:
    """The real app with `-c resumableStreams=off`, synthesized (cdk-nag runs in synth and raises on any
    unacknowledged finding)."""
    outdir = tmp_path_factory.mktemp("cdk.out.streams-off")
    context = {**NO_BUNDLING, "resumableStreams": "off"}
    app, stack = build_app(outdir=str(outdir), context=context, bundle_dir=fake_bundles)
    app.synth()
    return Synthesized(app, stack, Template.from_stack(stack), outdir)


def _env(synthesized: Synthesized) -> dict[str, Any]:
    (fn,) = [
        r for r in synthesized.resources("AWS::Lambda::Function").values() if r["Properties"].get("Handler") == HANDLER
    ]
    variables: dict[str, Any] = fn["Properties"]["Environment"]["Variables"]
    return variables


def _routes(synthesized: Synthesized) -> dict[str, Any]:
    return {r["Properties"]["RouteKey"]: r for r in synthesized.resources("AWS::ApiGatewayV2::Route").values()}


def _throttles(synthesized: Synthesized) -> dict[str, Any]:
    (stage,) = synthesized.resources("AWS::ApiGatewayV2::Stage").values()
    settings: dict[str, Any] = stage["Properties"]["RouteSettings"]
    return settings


def test_on_by_default_the_function_resumes_streams_with_a_value_its_settings_read_as_on(
    synthesized: Synthesized,
) -> None:
    value = _env(synthesized)["RESUMABLE_STREAMS"]
    assert Settings(resumable_streams=value).resumable_streams is True


def test_off_the_function_is_told_so_whatever_its_own_default(switched_off: Synthesized) -> None:
    value = _env(switched_off)["RESUMABLE_STREAMS"]
    assert Settings(resumable_streams=value).resumable_streams is False


def test_get_mcp_reaches_the_function_on_or_off_so_a_get_it_does_not_serve_is_its_405_not_a_gateway_404(
    synthesized: Synthesized, switched_off: Synthesized
) -> None:
    for variant in (synthesized, switched_off):
        routes = _routes(variant)
        assert routes["GET /mcp"]["Properties"]["Target"] == routes["POST /mcp"]["Properties"]["Target"]
    assert set(_routes(switched_off)) == set(_routes(synthesized))  # the flag adds no route and removes none


def test_on_get_mcp_is_throttled_like_the_calls_it_resumes_and_off_like_the_other_405_routes(
    synthesized: Synthesized, switched_off: Synthesized
) -> None:
    on, off = _throttles(synthesized), _throttles(switched_off)
    assert on["GET /mcp"] == on["POST /mcp"] == off["POST /mcp"]
    assert off["GET /mcp"] == off["DELETE /mcp"] == on["DELETE /mcp"]
    assert off["GET /mcp"]["ThrottlingRateLimit"] < off["POST /mcp"]["ThrottlingRateLimit"]
    assert {k: v for k, v in on.items() if k != "GET /mcp"} == {k: v for k, v in off.items() if k != "GET /mcp"}


def test_off_the_app_passes_cdk_nag_and_cfn_lint(switched_off: Synthesized) -> None:
    report = json.loads((switched_off.outdir / "validation-report.json").read_text())
    assert [p for p in report["pluginReports"] if p.get("violations")] == []
    config = ManualArgs(ignore_checks=CFN_LINT_IGNORED, regions=["us-east-1", "eu-west-1"])
    assert [str(m) for m in lint_file(switched_off.template_path, config=config)] == []


def test_unset_the_flag_is_on(bare_stack: Callable[..., cdk.Stack]) -> None:
    assert ServiceOptions.from_context(bare_stack().node).resumable_streams is True


@pytest.mark.parametrize(("value", "on"), [("on", True), ("off", False), ("ON", True), (True, True), (False, False)])
def test_the_flag_reads_on_and_off(bare_stack: Callable[..., cdk.Stack], value: object, on: bool) -> None:
    assert ServiceOptions.from_context(bare_stack(resumableStreams=value).node).resumable_streams is on


@pytest.mark.parametrize("value", ["yes", "true", "1", ""])
def test_any_other_value_fails_synth_in_one_sentence_naming_the_key(
    bare_stack: Callable[..., cdk.Stack], value: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        ServiceOptions.from_context(bare_stack(resumableStreams=value).node)
    assert str(refused.value) == f"resumableStreams must be on or off, got {value!r}"


def test_the_infra_readme_states_the_poll_interval_and_bound_the_function_uses() -> None:
    text = " ".join((ROOT / "infra" / "README.md").read_text().split())
    (section,) = re.findall(r"\*\*Resumable streams \(on by default\)\.\*\*.*?(?= - \*\*|$)", text)
    assert "-c resumableStreams=off" in section
    assert f"every {FIRST_RETRY_MS / 1000:g}–{LONGEST_RETRY_MS / 1000:g} s" in section
    assert "REQUEST_STATE_TTL_SECONDS" in section
    ttl = Settings.model_fields["request_state_ttl_seconds"].default
    assert f"{ttl // 60} minutes" in section
