"""Saved Logs Insights queries (CloudWatch → Logs Insights → Saved queries, under widget-mcp/<stack>/), written
against the fields the function and the API really log (cdk/function_telemetry.py). The logs carry no game or form
ids and no principal ids (SECURITY.md), so a caller is its network address, as the API's access log records it, and a
game or form is its `ref`, a keyed reference only the holder of the stack's key computes (`make log-ref ID=…`)."""

from __future__ import annotations

from dataclasses import dataclass

import aws_cdk as cdk
from aws_cdk import aws_logs as logs
from constructs import Construct

from widget_mcp.cdk import function_telemetry as names

# The address a deployer replaces with the caller's before running the query (a documentation address).
EXAMPLE_IP = "203.0.113.10"
EXAMPLE_REQUEST_ID = "REPLACE-with-a-requestId"
EXAMPLE_REF = "REPLACE-with-make-log-ref"


@dataclass(frozen=True)
class SavedQuery:
    """A Logs Insights query by name, over the function's or the API's log group."""

    slug: str
    group: str  # "function" or "access"
    text: str


def saved_queries() -> tuple[SavedQuery, ...]:
    """The queries saved with the stack, each written against the fields the logs really carry."""
    n = names
    return (
        SavedQuery(
            "slowest-calls",
            "function",
            f"fields @timestamp, {n.TOOL_DIMENSION}, {n.DURATION_MS}, {n.ERROR_CODE}, {n.PRINCIPAL_SOURCE}, "
            f"{n.CORRELATION_ID}\n| filter ispresent({n.DURATION_MS})\n| sort {n.DURATION_MS} desc\n| limit 50",
        ),
        SavedQuery(
            "errors-by-code",
            "function",
            f'filter {n.MESSAGE} = "{n.FAILED}"\n| stats count(*) as calls by {n.ERROR_CODE}, {n.TOOL_DIMENSION}\n'
            "| sort calls desc",
        ),
        SavedQuery(
            "one-caller",
            "access",
            f"fields @timestamp, {n.ACCESS_ROUTE}, {n.ACCESS_STATUS}, {n.ACCESS_LATENCY}, "
            f"{n.ACCESS_INTEGRATION_ERROR}, {n.ACCESS_REQUEST_ID}\n"
            f'| filter {n.ACCESS_IP} = "{EXAMPLE_IP}"\n| sort @timestamp desc\n| limit 500',
        ),
        SavedQuery(
            "one-game",
            "function",
            f"fields @timestamp, {n.TOOL_DIMENSION}, {n.MESSAGE}, {n.ERROR_CODE}, {n.DURATION_MS}, "
            f"{n.PRINCIPAL_SOURCE}, {n.CORRELATION_ID}\n"
            f'| filter {n.SESSION_REF} = "{EXAMPLE_REF}"\n| sort @timestamp asc\n| limit 1000',
        ),
        SavedQuery(
            "one-request",
            "function",
            f"fields @timestamp, level, {n.MESSAGE}, {n.TOOL_DIMENSION}, {n.ERROR_CODE}, {n.DURATION_MS}, "
            f'exception\n| filter {n.CORRELATION_ID} = "{EXAMPLE_REQUEST_ID}"\n| sort @timestamp asc',
        ),
    )


class SavedQueries(Construct):
    """The saved queries as stack resources (CloudWatch → Logs Insights → Saved queries)."""

    def __init__(
        self, scope: Construct, construct_id: str, *, function_logs: logs.ILogGroup, access_logs: logs.ILogGroup
    ) -> None:
        super().__init__(scope, construct_id)
        stack_name = cdk.Stack.of(self).stack_name
        groups = {"function": function_logs, "access": access_logs}
        for query in saved_queries():
            logs.CfnQueryDefinition(
                self,
                query.slug,
                name=f"widget-mcp/{stack_name}/{query.slug}",
                query_string=query.text,
                log_group_names=[groups[query.group].log_group_name],
            )
