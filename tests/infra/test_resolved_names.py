"""Both templates (plain and `-c signIn=true`) with every intrinsic replaced by its deploy-time value: cfn-lint and
AWS's documented name rules must pass on what CloudFormation will actually send to each service."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from cfnlint.api import ManualArgs, lint
from resolved_template import (
    ACCOUNT_SCOPED,
    NAME_RULES,
    Deployment,
    Unresolvable,
    at_path,
    intrinsics_left,
    name_problems,
    names,
    resolved,
)
from synth_support import Synthesized
from widget_mcp.cdk.sign_in import default_domain_prefix

VARIANTS = ["synthesized", "with_sign_in"]
# As in test_cdk_nag_and_cfn_lint.py, CDK's redundant DependsOn entries; and W2530, which finds a SnapStart
# function's version by its Ref, gone once resolved (the unresolved template's lint still runs W2530).
CFN_LINT_IGNORED = ["W3005", "W2530"]


def _template(request: pytest.FixtureRequest, variant: str) -> dict[str, Any]:
    synthesized: Synthesized = request.getfixturevalue(variant)
    template: dict[str, Any] = synthesized.template.to_json()
    return template


def _cfn_lint(template: dict[str, Any], region: str) -> list[str]:
    config = ManualArgs(ignore_checks=CFN_LINT_IGNORED, regions=[region])
    return [f"{m.rule.id} {m.message}" for m in lint(json.dumps(template, indent=1), config=config)]


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_reference_in_resources_and_outputs_resolves_to_a_concrete_value(
    request: pytest.FixtureRequest, variant: str
) -> None:
    template = _template(request, variant)
    assert intrinsics_left(template["Resources"]), "the synthesized template has intrinsics to resolve"
    done = resolved(template)
    assert intrinsics_left(done["Resources"]) == []
    assert intrinsics_left(done["Outputs"]) == []
    assert done["Outputs"]["McpUrl"]["Value"] == "https://abc123defg.execute-api.eu-west-1.amazonaws.com/mcp"


@pytest.mark.parametrize("variant", VARIANTS)
def test_cfn_lint_finds_nothing_once_values_are_substituted(request: pytest.FixtureRequest, variant: str) -> None:
    assert _cfn_lint(resolved(_template(request, variant)), "eu-west-1") == []


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_name_like_property_meets_its_documented_pattern_and_length(
    request: pytest.FixtureRequest, variant: str
) -> None:
    done = resolved(_template(request, variant))
    checked = {(rule.resource_type, rule.path) for _, rule, _ in names(done)}
    # The names this stack sets itself, so a renamed property cannot make the check vacuous.
    expected = {
        ("AWS::CloudFront::ResponseHeadersPolicy", "ResponseHeadersPolicyConfig.Name"),
        ("AWS::CloudFront::CachePolicy", "CachePolicyConfig.Name"),
        ("AWS::CloudFront::OriginAccessControl", "OriginAccessControlConfig.Name"),
        ("AWS::IAM::Policy", "PolicyName"),
        ("AWS::Lambda::Alias", "Name"),
    }
    if variant == "with_sign_in":
        expected |= {
            ("AWS::Cognito::UserPoolResourceServer", "Name"),
            ("AWS::Cognito::UserPoolResourceServer", "Identifier"),
            ("AWS::Cognito::UserPoolDomain", "Domain"),
        }
    assert expected <= checked
    assert name_problems(done) == []


def test_the_resource_server_keeps_the_mcp_url_as_identifier_under_a_fixed_valid_name(
    with_sign_in: Synthesized,
) -> None:
    done = resolved(with_sign_in.template.to_json())
    (server,) = [r for r in done["Resources"].values() if r["Type"] == "AWS::Cognito::UserPoolResourceServer"]
    assert server["Properties"]["Identifier"] == Deployment().mcp_url
    assert server["Properties"]["Name"] == "widget-mcp tools"


def test_a_resource_server_named_for_its_url_is_caught_by_both_checks(with_sign_in: Synthesized) -> None:
    # The deploy blocker of issue 15, re-created: Cognito refuses a URL as a name, and only resolved values show it.
    template = copy.deepcopy(with_sign_in.template.to_json())
    (server,) = [r for r in template["Resources"].values() if r["Type"] == "AWS::Cognito::UserPoolResourceServer"]
    server["Properties"]["Name"] = server["Properties"]["Identifier"]  # a Fn::Join on the API endpoint
    assert _cfn_lint(template, "eu-west-1") == [], "unresolved, cfn-lint cannot tell"
    done = resolved(template)
    assert _cfn_lint(done, "eu-west-1") == [
        f"E3031 '{Deployment().mcp_url}' does not match " + r"'^[\\w\\s+=,.@-]+$'"  # the Name pattern
    ]
    (problem,) = name_problems(done)
    assert "Name: 'https://abc123defg.execute-api.eu-west-1.amazonaws.com/mcp' does not match" in problem


def test_names_cloudfront_keeps_per_account_differ_between_two_regions_of_one_account(
    synthesized: Synthesized,
) -> None:
    template = synthesized.template.to_json()
    by_region = {}
    for region in ("eu-west-1", "us-east-1"):
        done = resolved(template, Deployment(region=region))
        by_region[region] = {
            (logical_id, at_path(r["Properties"], ACCOUNT_SCOPED[r["Type"]]))
            for logical_id, r in done["Resources"].items()
            if r["Type"] in ACCOUNT_SCOPED
        }
    assert len(by_region["eu-west-1"]) == 4  # the headers policy, two cache policies, the OAC
    assert not {n for _, n in by_region["eu-west-1"]} & {n for _, n in by_region["us-east-1"]}


def test_the_default_sign_in_domain_is_the_stack_names_own_in_its_account() -> None:
    rule = next(r for r in NAME_RULES if r.resource_type == "AWS::Cognito::UserPoolDomain")
    prefixes = {
        default_domain_prefix(stack, account)
        for stack in ("WidgetMcp", "WidgetMcpStaging", "widgetmcp", "Aws-Cognito-Amazon-" + "X" * 100)
        for account in ("123456789012", "210987654321")
    }
    assert len(prefixes) == 8
    assert [p for p in prefixes if rule.problems(p)] == []


def test_the_default_sign_in_domain_in_the_template_is_this_stacks(with_sign_in: Synthesized) -> None:
    done = resolved(with_sign_in.template.to_json())
    (domain,) = [r for r in done["Resources"].values() if r["Type"] == "AWS::Cognito::UserPoolDomain"]
    assert domain["Properties"]["Domain"] == default_domain_prefix("WidgetMcp", "123456789012")
    assert done["Outputs"]["SignInUrl"]["Value"] == (
        f"https://{domain['Properties']['Domain']}.auth.eu-west-1.amazoncognito.com"
    )


def test_a_reference_the_resolver_has_no_value_for_fails_instead_of_passing() -> None:
    template = {
        "Resources": {
            "Queue": {"Type": "AWS::SQS::Queue", "Properties": {}},
            "Fn": {"Type": "AWS::Lambda::Function", "Properties": {"Description": {"Fn::GetAtt": ["Queue", "Arn"]}}},
        }
    }
    with pytest.raises(Unresolvable, match=r"AWS::SQS::Queue\.Arn"):
        resolved(template)
    template["Resources"]["Fn"]["Properties"]["Description"] = {"Fn::ImportValue": "Elsewhere"}
    with pytest.raises(Unresolvable, match="Fn::ImportValue"):
        resolved(template)
