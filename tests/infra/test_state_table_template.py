"""The state table's security- and durability-relevant properties, as synthesized."""

from __future__ import annotations

from collections.abc import Callable

import aws_cdk as cdk
from aws_cdk.assertions import Match, Template
from synth_support import Synthesized
from widget_mcp.cdk.config import ServiceOptions
from widget_mcp.cdk.state_table import StateTable


def _table(make_stack: Callable[..., cdk.Stack], **context: object) -> Template:
    stack = make_stack(**context)
    config = ServiceOptions.from_context(stack.node)
    StateTable(stack, "State", removal_policy=config.removal_policy, deletion_protection=config.deletion_protection)
    return Template.from_stack(stack)


def test_the_table_has_the_key_schema_ttl_and_billing_the_app_expects(synthesized: Synthesized) -> None:
    synthesized.template.has_resource_properties(
        "AWS::DynamoDB::Table",
        {
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            "AttributeDefinitions": Match.array_with([{"AttributeName": "pk", "AttributeType": "S"}]),
            "TimeToLiveSpecification": {"AttributeName": "ttl", "Enabled": True},
            "BillingMode": "PAY_PER_REQUEST",
        },
    )


def test_the_table_is_encrypted_and_recoverable_to_a_point_in_time(synthesized: Synthesized) -> None:
    synthesized.template.has_resource_properties(
        "AWS::DynamoDB::Table",
        {
            "SSESpecification": {"SSEEnabled": True},
            "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
        },
    )


def test_a_dev_stage_table_is_deleted_with_the_stack(bare_stack: Callable[..., cdk.Stack]) -> None:
    template = _table(bare_stack)
    template.has_resource(
        "AWS::DynamoDB::Table",
        {"DeletionPolicy": "Delete", "Properties": Match.object_like({"DeletionProtectionEnabled": False})},
    )


def test_a_prod_stage_table_is_retained_and_protected_from_deletion(bare_stack: Callable[..., cdk.Stack]) -> None:
    template = _table(bare_stack, stage="prod")
    template.has_resource(
        "AWS::DynamoDB::Table",
        {
            "DeletionPolicy": "Retain",
            "UpdateReplacePolicy": "Retain",
            "Properties": Match.object_like({"DeletionProtectionEnabled": True}),
        },
    )


def test_context_overrides_the_stage_defaults(bare_stack: Callable[..., cdk.Stack]) -> None:
    template = _table(bare_stack, stage="prod", removalPolicy="destroy", deletionProtection="false")
    template.has_resource("AWS::DynamoDB::Table", {"DeletionPolicy": "Delete"})
