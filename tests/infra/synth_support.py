"""The session's synthesized app, as test modules see it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aws_cdk as cdk
from aws_cdk.assertions import Template
from widget_mcp.cdk.mcp_api import HANDLER

from infra.stack import WidgetMcpStack

# Bundling is the asset build's job (tested in test_lambda_asset_build.py); template tests skip it.
NO_BUNDLING: dict[str, Any] = {"aws:cdk:bundling-stacks": []}


@dataclass(frozen=True)
class Synthesized:
    app: cdk.App
    stack: WidgetMcpStack
    template: Template
    outdir: Path

    @property
    def template_path(self) -> Path:
        return self.outdir / f"{self.stack.stack_name}.template.json"

    def resources(self, kind: str) -> dict[str, Any]:
        found: dict[str, Any] = self.template.find_resources(kind)
        return found


def function_env(template: Template) -> dict[str, Any]:
    """The MCP function's environment variables (the stack's other functions are CDK's own providers)."""
    (fn,) = template.find_resources("AWS::Lambda::Function", {"Properties": {"Handler": HANDLER}}).values()
    variables: dict[str, Any] = fn["Properties"]["Environment"]["Variables"]
    return variables
