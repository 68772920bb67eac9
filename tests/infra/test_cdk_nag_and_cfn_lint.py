"""Policy checks on the synthesized app: cdk-nag's AWS Solutions pack and cfn-lint."""

from __future__ import annotations

import json
from collections import defaultdict

import aws_cdk as cdk
import pytest
from aws_cdk import aws_s3 as s3
from cdk_nag import AwsSolutionsChecks
from cfnlint.api import ManualArgs, lint_file
from synth_support import NO_BUNDLING, Synthesized

# CDK emits DependsOn entries cfn-lint considers redundant; nothing else is ignored.
CFN_LINT_IGNORED = ["W3005"]


def _acknowledgements(synthesized: Synthesized) -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for construct in synthesized.app.node.find_all():
        for entry in construct.node.metadata:
            if entry.type == cdk.Validations.ACKNOWLEDGED_RULES_METADATA_KEY:
                for rule, reason in entry.data.items():
                    found[rule].add(reason)
    return found


def test_cdk_nag_reports_no_unacknowledged_finding(synthesized: Synthesized) -> None:
    report = json.loads((synthesized.outdir / "validation-report.json").read_text())
    assert [p for p in report["pluginReports"] if p.get("violations")] == []


def test_every_acknowledgement_names_a_specific_reason(synthesized: Synthesized) -> None:
    acknowledged = _acknowledgements(synthesized)
    assert acknowledged, "the app acknowledges findings; none were found, so the lookup is broken"
    for rule, reasons in acknowledged.items():
        for reason in reasons:
            assert len(reason) >= 60, f"{rule}: the reason {reason!r} is too short to be specific"


def test_cdk_nag_is_live_an_unacknowledged_finding_fails_synth() -> None:
    app = cdk.App(context=NO_BUNDLING)
    stack = cdk.Stack(app, "Nagged")
    s3.Bucket(stack, "NoLogs", enforce_ssl=True)
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    with pytest.raises(RuntimeError, match="AwsSolutions-S1"):
        app.synth()


def test_cfn_lint_finds_nothing_in_the_synthesized_template(synthesized: Synthesized) -> None:
    config = ManualArgs(ignore_checks=CFN_LINT_IGNORED, regions=["us-east-1", "eu-west-1"])
    matches = lint_file(synthesized.template_path, config=config)
    assert [str(m) for m in matches] == []
