"""The state table: the shape the app's storage layer expects (`widget_mcp.storage.table`), made durable."""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_dynamodb as dynamodb
from constructs import Construct

from widget_mcp.storage.table import PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE


class StateTable(Construct):
    """The apps' state: string `pk`/`sk`, TTL `ttl`, on-demand, point-in-time recovery, the AWS managed key."""

    def __init__(
        self, scope: Construct, construct_id: str, *, removal_policy: cdk.RemovalPolicy, deletion_protection: bool
    ) -> None:
        super().__init__(scope, construct_id)
        self.table = dynamodb.Table(
            self,
            "Table",
            partition_key=dynamodb.Attribute(name=PARTITION_KEY, type=dynamodb.AttributeType.STRING),
            sort_key=dynamodb.Attribute(name=SORT_KEY, type=dynamodb.AttributeType.STRING),
            time_to_live_attribute=TTL_ATTRIBUTE,
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True
            ),
            # The AWS managed key (aws/dynamodb): auditable in CloudTrail, no monthly key fee.
            encryption=dynamodb.TableEncryption.AWS_MANAGED,
            deletion_protection=deletion_protection,
            removal_policy=removal_policy,
        )
