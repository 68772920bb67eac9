"""The stack's alarms, every one into one encrypted SNS topic; each alarm's meaning and first check are in
infra/README.md ("Runbook"), under the name its description gives."""

from __future__ import annotations

import re
from dataclasses import dataclass

import aws_cdk as cdk
from aws_cdk import aws_cloudwatch as cw
from aws_cdk import aws_cloudwatch_actions as cw_actions
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_logs as logs
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from constructs import Construct

from widget_mcp.cdk import function_telemetry as names
from widget_mcp.cdk import service_levels as levels
from widget_mcp.cdk.mcp_api import TABLE_ACTIONS, TIMEOUT, McpApi
from widget_mcp.cdk.served_apps import ServedTool
from widget_mcp.toolkit.failures import INTERNAL_ERROR_CODE

# What the storage adapter calls (the role's actions), and the transaction IAM authorizes as PutItem.
TABLE_OPERATIONS = tuple(
    dynamodb.Operation[re.sub(r"(?<!^)(?=[A-Z])", "_", action.removeprefix("dynamodb:")).upper()]
    for action in (*TABLE_ACTIONS, "dynamodb:TransactWriteItems")
)
# Metrics the stack derives from the logs (metric filters), in a namespace of its own per stack.
CALLS = "ToolCalls"
SERVER_FAULTS = "ToolServerFaults"
INTERNAL_ERRORS = "ToolInternalErrors"
API_THROTTLED = "ApiThrottled"


@dataclass(frozen=True)
class Watched:
    """What the alarms watch: the endpoint (its API, function, reserve, logs and Powertools service, the tool metrics'
    `service` dimension), the table, and the tools the function serves."""

    endpoint: McpApi
    table: dynamodb.ITable
    tools: tuple[ServedTool, ...]


def derived_namespace(stack: cdk.Stack) -> str:
    """The CloudWatch namespace of the metrics derived from this stack's logs."""
    return f"{names.NAMESPACE}/{stack.stack_name}"


def tool_metric(metric_name: str, tool: str, statistic: str, service: str, label: str | None = None) -> cw.Metric:
    """A metric of the function's own EMF documents (widget_mcp/observability.py), for one tool of one service."""
    return cw.Metric(
        namespace=names.NAMESPACE,
        metric_name=metric_name,
        dimensions_map={names.TOOL_DIMENSION: tool, names.SERVICE_DIMENSION: service},
        statistic=statistic,
        period=levels.PERIOD,
        label=label or tool,
    )


class Alarms(Construct):
    """Every alarm of the service (errors, faults, latency per tool, throttles, table capacity) into one encrypted
    SNS topic, and the metric filters that derive their metrics from the logs."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        watched: Watched,
        email: str | None,
        removal_policy: cdk.RemovalPolicy,
    ) -> None:
        super().__init__(scope, construct_id)
        stack = cdk.Stack.of(self)
        self._stack_name = stack.stack_name
        # A key of our own: CloudWatch cannot publish to a topic under the AWS managed aws/sns key, whose policy
        # cannot grant it.
        key = kms.Key(
            self,
            "TopicKey",
            description="widget-mcp alarms: encrypts the alarm topic",
            enable_key_rotation=True,
            removal_policy=removal_policy,
        )
        key.grant(iam.ServicePrincipal("cloudwatch.amazonaws.com"), "kms:Decrypt", "kms:GenerateDataKey*")
        self.topic = sns.Topic(self, "Topic", display_name="widget-mcp alarms", master_key=key, enforce_ssl=True)
        self.topic.add_to_resource_policy(
            iam.PolicyStatement(
                sid="AlarmsOfThisAccount",
                principals=[iam.ServicePrincipal("cloudwatch.amazonaws.com")],
                actions=["sns:Publish"],
                resources=[self.topic.topic_arn],
                conditions={
                    "ArnLike": {
                        "aws:SourceArn": f"arn:{stack.partition}:cloudwatch:{stack.region}:{stack.account}:alarm:*"
                    },
                    "StringEquals": {"aws:SourceAccount": stack.account},
                },
            )
        )
        if email:
            self.topic.add_subscription(subscriptions.EmailSubscription(email))
        self._action = cw_actions.SnsAction(self.topic)
        self.alarms: list[cw.Alarm] = []
        self.derived = _DerivedMetrics(self, watched, derived_namespace(stack))
        self._function_alarms(watched)
        self._api_alarms(watched)
        self._table_alarms(watched)
        self._tool_alarms(watched)

    def _alarm(
        self,
        slug: str,
        metric: cw.IMetric,
        threshold: float,
        what: str,
        *,
        periods: int = levels.EVALUATION,
        comparison: cw.ComparisonOperator = cw.ComparisonOperator.GREATER_THAN_THRESHOLD,
    ) -> cw.Alarm:
        alarm = cw.Alarm(
            self,
            slug,
            alarm_name=f"{self._stack_name}-{slug}",
            alarm_description=f"{what} Runbook: infra/README.md, '{slug}'.",
            metric=metric,
            threshold=threshold,
            comparison_operator=comparison,
            evaluation_periods=periods,
            datapoints_to_alarm=periods,
            # No traffic is not a failure: a quiet stack stays OK.
            treat_missing_data=cw.TreatMissingData.NOT_BREACHING,
        )
        alarm.add_alarm_action(self._action)
        alarm.add_ok_action(self._action)
        self.alarms.append(alarm)
        return alarm

    def _function_alarms(self, w: Watched) -> None:
        at_least = cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD
        fn, reserved = w.endpoint.function, w.endpoint.reserved_concurrency
        # The function answers every failure itself: an error it reports to Lambda is a crash or a timeout.
        self._alarm(
            "function-errors",
            fn.metric_errors(period=levels.PERIOD, statistic="Sum"),
            1,
            "The function crashed or timed out.",
            periods=1,
            comparison=at_least,
        )
        self._alarm(
            "function-throttles",
            fn.metric_throttles(period=levels.PERIOD, statistic="Sum"),
            1,
            "Lambda refused invocations: every reserved execution was busy.",
            periods=1,
            comparison=at_least,
        )
        limit_ms = TIMEOUT.to_milliseconds() * levels.TIMEOUT_FRACTION
        self._alarm(
            "function-duration-p99",
            fn.metric_duration(period=levels.PERIOD, statistic="p99"),
            limit_ms,
            f"The function's p99 duration is over {limit_ms:.0f} ms, {levels.TIMEOUT_FRACTION:.0%} of its timeout.",
        )
        if reserved is not None:
            near = reserved * levels.CONCURRENCY_FRACTION
            self._alarm(
                "concurrency-near-reserve",
                fn.metric("ConcurrentExecutions", period=levels.PERIOD, statistic="Maximum"),
                near,
                f"Concurrent executions reached {near:.0f}, {levels.CONCURRENCY_FRACTION:.0%} of the "
                f"{reserved} reserved.",
                comparison=at_least,
            )

    def _api_alarms(self, w: Watched) -> None:
        api = w.endpoint.api
        requests = api.metric_count(period=levels.PERIOD, statistic="Sum")
        self._alarm(
            "api-5xx-rate",
            cw.MathExpression(
                expression="IF(requests > 0, 100 * errors / requests, 0)",
                using_metrics={"errors": api.metric_server_error(period=levels.PERIOD), "requests": requests},
                label="5xx, % of requests",
                period=levels.PERIOD,
            ),
            levels.FAULT_RATE_PERCENT,
            f"Over {levels.FAULT_RATE_PERCENT}% of the API's requests got a 5xx.",
        )
        self._alarm(
            "api-429-surge",
            cw.MathExpression(
                expression="IF(requests > 0, 100 * throttled / requests, 0)",
                using_metrics={"throttled": self.derived.api_throttled, "requests": requests},
                label="429, % of requests",
                period=levels.PERIOD,
            ),
            levels.THROTTLED_PERCENT,
            f"Over {levels.THROTTLED_PERCENT}% of the API's requests were refused by its throttle (429).",
        )

    def _table_alarms(self, w: Watched) -> None:
        self._alarm(
            "table-throttles",
            w.table.metric_throttled_requests_for_operations(operations=list(TABLE_OPERATIONS), period=levels.PERIOD),
            0,
            "DynamoDB throttled the state table's requests (a hot partition, or the account's table limits).",
            periods=2,
        )
        self._alarm(
            "table-system-errors",
            w.table.metric_system_errors_for_operations(operations=list(TABLE_OPERATIONS), period=levels.PERIOD),
            0,
            "DynamoDB answered the state table's requests with a server error.",
            periods=1,
        )

    def _tool_alarms(self, w: Watched) -> None:
        self._alarm(
            "internal-errors",
            self.derived.internal_errors,
            1,
            "A tool call failed as internal_error: a bug, logged with its traceback.",
            periods=1,
            comparison=cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        )
        self._alarm(
            "tool-fault-rate",
            cw.MathExpression(
                expression="IF(calls > 0, 100 * faults / calls, 0)",
                using_metrics={"faults": self.derived.server_faults, "calls": self.derived.calls},
                label="server faults, % of tool calls",
                period=levels.PERIOD,
            ),
            levels.FAULT_RATE_PERCENT,
            f"Over {levels.FAULT_RATE_PERCENT}% of tool calls failed on the server's side "
            f"({', '.join(levels.SERVER_FAULT_CODES)}): {levels.FAST_BURN}x the error budget of the "
            f"{levels.SUCCESS_OBJECTIVE:.1%} objective.",
        )
        for tool in w.tools:
            if tool.answers_in_call:
                self._alarm(
                    f"latency-p99-{tool.name}",
                    tool_metric(names.LATENCY, tool.name, "p99", w.endpoint.service),
                    levels.WARM_P99_MS,
                    f"{tool.name}'s p99 latency is over the {levels.WARM_P99_MS} ms objective.",
                )


class _DerivedMetrics:
    """Metric filters on the function's and the API's logs: what the EMF metrics do not carry (the error code of a
    failed call, a count of calls across tools, the API's 429s)."""

    def __init__(self, scope: Construct, w: Watched, namespace: str) -> None:
        message = "$." + names.MESSAGE
        finished = logs.FilterPattern.string_value(message, "=", names.FINISHED)
        failed = logs.FilterPattern.string_value(message, "=", names.FAILED)

        def code_is(*codes: str) -> logs.JsonPattern:
            return logs.FilterPattern.any(
                *(logs.FilterPattern.string_value("$." + names.ERROR_CODE, "=", c) for c in codes)
            )

        def counted(construct_id: str, group: logs.ILogGroup, pattern: logs.IFilterPattern, name: str) -> cw.Metric:
            logs.MetricFilter(
                scope,
                construct_id,
                log_group=group,
                filter_pattern=pattern,
                metric_namespace=namespace,
                metric_name=name,
                metric_value="1",
                default_value=0,
            )
            return cw.Metric(namespace=namespace, metric_name=name, statistic="Sum", period=levels.PERIOD, label=name)

        function_logs = w.endpoint.function_logs
        self.calls = counted("CallsFilter", function_logs, logs.FilterPattern.any(finished, failed), CALLS)
        self.server_faults = counted(
            "ServerFaultsFilter",
            function_logs,
            logs.FilterPattern.all(failed, code_is(*levels.SERVER_FAULT_CODES)),
            SERVER_FAULTS,
        )
        self.internal_errors = counted(
            "InternalErrorsFilter",
            function_logs,
            logs.FilterPattern.all(failed, code_is(INTERNAL_ERROR_CODE)),
            INTERNAL_ERRORS,
        )
        self.api_throttled = counted(
            "ThrottledFilter",
            w.endpoint.access_logs,
            logs.FilterPattern.string_value("$." + names.ACCESS_STATUS, "=", "429"),
            API_THROTTLED,
        )
