"""`-c apps=…` (the published profile) and `-c release=…`: the function is told which apps to serve and the release
its template URIs carry, and the stack's alarms follow the apps served; a name the registry does not know, or a release
that is not a version, fails synth in one sentence. Unset, neither reaches the function: every app, content hashes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Template
from synth_support import NO_BUNDLING, Synthesized, function_env
from widget_mcp.apps.registry import APPS, app_name
from widget_mcp.cdk.config import ConfigError, ServiceOptions
from widget_mcp.cdk.served_apps import served_tools

from infra.app import build_app

# Every registered app but the first (in the reference registry, the demo): a profile that leaves one out.
CHOSEN = tuple(app_name(entry) for entry in APPS[1:])
LEFT_OUT = APPS[0]


def _latency_alarmed(template: Template) -> set[str]:
    names = {a["Properties"].get("AlarmName", "") for a in template.find_resources("AWS::CloudWatch::Alarm").values()}
    return {name.split("latency-p99-")[1] for name in names if "latency-p99-" in name}


def test_a_named_profile_serves_only_those_apps_pins_the_release_and_alarms_only_their_tools(
    tmp_path: Path, fake_bundles: Path
) -> None:
    context = {**NO_BUNDLING, "apps": ",".join(reversed(CHOSEN)), "release": "1.4.0"}
    _app, stack = build_app(outdir=str(tmp_path), context=context, bundle_dir=fake_bundles)
    template = Template.from_stack(stack)
    env = function_env(template)
    assert env["APPS"] == ",".join(CHOSEN)  # in the registry's order, whatever order the context gave
    assert env["WIDGET_RELEASE"] == "1.4.0"
    served = {t.name for t in served_tools(ServiceOptions.from_context(stack.node).apps) if t.answers_in_call}
    left_out = {t.name for t in served_tools((LEFT_OUT,))}
    assert _latency_alarmed(template) == served
    assert served
    assert left_out
    assert not served & left_out


def test_without_a_profile_the_function_serves_every_app_with_hashed_template_uris(synthesized: Synthesized) -> None:
    env = function_env(synthesized.template)
    assert "APPS" not in env
    assert "WIDGET_RELEASE" not in env
    assert _latency_alarmed(synthesized.template) == {t.name for t in served_tools(APPS) if t.answers_in_call}


@pytest.mark.parametrize(
    ("context", "sentence"),
    [
        ({"apps": f"{CHOSEN[0]},nosuchapp"}, r"^apps: app 'nosuchapp': not a registered app; the apps are "),
        ({"apps": " , "}, r"^apps must name at least one app"),
        ({"release": "latest"}, r"^release must be a version such as 1\.2\.0"),
        ({"release": "1.0/../x"}, r"^release must be a version"),
    ],
)
def test_a_bad_profile_fails_synth_with_a_sentence_naming_its_key(
    bare_stack: Callable[..., cdk.Stack], context: dict[str, str], sentence: str
) -> None:
    with pytest.raises(ConfigError, match=sentence):
        ServiceOptions.from_context(bare_stack(**context).node)
