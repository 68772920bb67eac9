"""The state table's shape, in one place: string keys `pk`/`sk`, TTL attribute `ttl`, on-demand billing.

Used to create the table in local mode and tests; the CDK stack declares the same shape for AWS.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

PARTITION_KEY = "pk"
SORT_KEY = "sk"
TTL_ATTRIBUTE = "ttl"


def create_state_table(client: DynamoDBClient, name: str) -> None:
    """Create the table if it is missing and wait until it is active. Idempotent."""
    existing = client.list_tables().get("TableNames", [])
    if name not in existing:
        client.create_table(
            TableName=name,
            AttributeDefinitions=[
                {"AttributeName": PARTITION_KEY, "AttributeType": "S"},
                {"AttributeName": SORT_KEY, "AttributeType": "S"},
            ],
            KeySchema=[
                {"AttributeName": PARTITION_KEY, "KeyType": "HASH"},
                {"AttributeName": SORT_KEY, "KeyType": "RANGE"},
            ],
            BillingMode="PAY_PER_REQUEST",
        )
        client.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 30})
    client.update_time_to_live(
        TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": TTL_ATTRIBUTE}
    )
