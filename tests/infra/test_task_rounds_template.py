"""The function may invoke its own `live` alias (a task's next round: widget_mcp/task_invokers.py) only when an app
it serves declares a tool that may run as a task; either way the whole stack passes cdk-nag."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import aws_cdk as cdk
from aws_cdk.assertions import Template
from cdk_nag import AwsSolutionsChecks
from synth_support import NO_BUNDLING
from widget_mcp.apps.registry import APPS, CONFORMANCE_APP
from widget_mcp.cdk.config import ServiceOptions
from widget_mcp.cdk.served_apps import serve_tasks

from infra.stack import WidgetMcpStack

# Apps that declare a task (the conformance suite's task fixtures) and none: no registry of today's apps assumed.
WITH_TASKS = (*APPS, CONFORMANCE_APP)
WITHOUT_TASKS = tuple(app for app in APPS if not serve_tasks((app,)))


def _synthesized(outdir: Path, bundles: Path, apps: tuple[str, ...]) -> dict[str, Any]:
    """The whole stack serving `apps`, cdk-nag on: synth raises on any unacknowledged finding."""
    app = cdk.App(outdir=str(outdir), context=NO_BUNDLING)
    config = replace(ServiceOptions.from_context(app.node), apps=apps)
    stack = WidgetMcpStack(app, "WidgetMcp", config=config, bundle_dir=bundles)
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    app.synth()
    found: dict[str, Any] = Template.from_stack(stack).to_json()["Resources"]
    return found


def _invoking(resources: dict[str, Any]) -> list[Any]:
    return [
        statement
        for r in resources.values()
        if r["Type"] == "AWS::IAM::Policy"
        for statement in r["Properties"]["PolicyDocument"]["Statement"]
        if "lambda:InvokeFunction" in statement["Action"]
    ]


def _alias(resources: dict[str, Any]) -> str:
    (alias_id,) = [k for k, r in resources.items() if r["Type"] == "AWS::Lambda::Alias"]
    return alias_id


def test_the_apps_used_here_declare_tasks_and_none_as_their_names_say() -> None:
    assert (serve_tasks(WITH_TASKS), serve_tasks(WITHOUT_TASKS)) == (True, False)


def test_a_stack_whose_apps_declare_a_task_may_invoke_its_live_alias_alone(tmp_path: Path, fake_bundles: Path) -> None:
    resources = _synthesized(tmp_path, fake_bundles, WITH_TASKS)
    assert _invoking(resources) == [
        {"Action": "lambda:InvokeFunction", "Effect": "Allow", "Resource": {"Ref": _alias(resources)}}
    ]


def test_a_stack_whose_apps_declare_no_task_may_invoke_no_function(tmp_path: Path, fake_bundles: Path) -> None:
    resources = _synthesized(tmp_path, fake_bundles, WITHOUT_TASKS)
    assert _invoking(resources) == []
    assert _alias(resources)  # the API still invokes the published alias
