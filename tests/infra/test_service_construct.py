"""WidgetMcpService in a CDK app of its own: typed options, apps from outside the toolkit (WIDGET_MCP_APPS), and this
repository's stack as one use of it that keeps the logical ids the stack gave its resources before."""

from __future__ import annotations

from pathlib import Path

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Template
from outside_app import write_outside_app
from synth_support import NO_BUNDLING, Synthesized, function_env
from widget_mcp.apps.registry import DATA_APP, app_name
from widget_mcp.cdk import ConfigError, LambdaSource, ServiceOptions, WidgetMcpService, options_from_context
from widget_mcp.cdk.served_apps import registry_of, served_tools

# An app package of a project's own, outside the toolkit, named by import path.
OUTSIDE_APP = "outside_weather"
OUTSIDE_TOOL = "outside_weather_now"


@pytest.fixture
def outside_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    write_outside_app(tmp_path, OUTSIDE_APP, OUTSIDE_TOOL)
    monkeypatch.syspath_prepend(str(tmp_path))
    return OUTSIDE_APP


def _service(fake_bundles: Path, **kwargs: object) -> tuple[WidgetMcpService, Template]:
    app = cdk.App(context=NO_BUNDLING)
    stack = cdk.Stack(app, "Users")
    service = WidgetMcpService(
        stack, "Service", bundle_dir=fake_bundles, lambda_source=LambdaSource.repository(), **kwargs
    )
    return service, Template.from_stack(stack)


def _latency_alarmed(template: Template) -> set[str]:
    names = {a["Properties"].get("AlarmName", "") for a in template.find_resources("AWS::CloudWatch::Alarm").values()}
    return {name.split("latency-p99-")[1] for name in names if "latency-p99-" in name}


def test_apps_from_outside_are_set_as_widget_mcp_apps_and_decide_the_tools_alarmed(
    fake_bundles: Path, outside_app: str
) -> None:
    service, template = _service(fake_bundles, apps=[outside_app])
    env = function_env(template)
    assert env["WIDGET_MCP_APPS"] == OUTSIDE_APP
    assert "APPS" not in env
    assert service.served == (OUTSIDE_APP, DATA_APP)
    expected = {tool.name for tool in served_tools(service.served) if tool.answers_in_call}
    assert _latency_alarmed(template) == expected
    assert OUTSIDE_TOOL in expected


def test_without_apps_the_service_serves_the_toolkits_registry_and_sets_no_registry_variable(
    synthesized: Synthesized,
) -> None:
    assert "WIDGET_MCP_APPS" not in function_env(synthesized.template)
    assert synthesized.stack.service.served == registry_of(None)


def test_options_set_in_code_are_what_the_same_context_would_set(fake_bundles: Path) -> None:
    # What `-c stage=prod -c signIn=true -c monitoring=off` means, spelled out: prod keeps its data, and signed in
    # the function takes no host tokens, so it gets no such key.
    options = ServiceOptions(
        stage="prod",
        retain_data=True,
        deletion_protection=True,
        sign_in=True,
        monitoring=False,
        existing_secrets={"HOST_TOKEN_SECRET_ARN": None},
    )
    app = cdk.App(context={**NO_BUNDLING, "signIn": "true", "monitoring": "off", "stage": "prod"})
    assert options_from_context(app.node) == options
    typed, in_code = _service(fake_bundles, options=options)
    in_code.resource_count_is("AWS::Cognito::UserPool", 1)
    in_code.resource_count_is("AWS::CloudWatch::Alarm", 0)
    assert typed.sign_in is not None


def test_the_service_outputs_what_a_deployer_needs_under_its_own_path(fake_bundles: Path) -> None:
    _, template = _service(fake_bundles)
    outputs = template.find_outputs("*")
    assert any(name.startswith("ServiceMcpUrl") for name in outputs)
    assert any(name.startswith("ServiceTableName") for name in outputs)


def test_a_selection_naming_an_app_the_service_does_not_register_fails_synth_with_a_sentence() -> None:
    registered = registry_of([OUTSIDE_APP])
    outside_the_selection = next(
        name for name in (app_name(e) for e in registry_of(None)) if name not in map(app_name, registered)
    )
    app = cdk.App(context={**NO_BUNDLING, "apps": outside_the_selection})
    with pytest.raises(ConfigError, match=rf"^apps: app '{outside_the_selection}': not a registered app"):
        options_from_context(app.node, apps=[OUTSIDE_APP])


def test_this_repositorys_stack_keeps_the_logical_ids_it_gave_its_table_bucket_and_outputs(
    synthesized: Synthesized,
) -> None:
    template = synthesized.template
    (table,) = template.find_resources("AWS::DynamoDB::Table")
    assert table.startswith("StateTable")  # the id the stack gave State/Table itself: no construct in between
    buckets = template.find_resources("AWS::S3::Bucket")
    assert any(name.startswith("WidgetCdnBundles") for name in buckets)
    assert {"McpUrl", "WidgetBaseUrl", "TableName"} <= set(template.find_outputs("*"))
