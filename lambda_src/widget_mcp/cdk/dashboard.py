"""One CloudWatch dashboard: tool calls, errors by code, p50/p99 latency per tool, concurrency, table capacity, and
every alarm's state."""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_cloudwatch as cw
from constructs import Construct

from widget_mcp.cdk import function_telemetry as names
from widget_mcp.cdk import service_levels as levels
from widget_mcp.cdk.alarms import TABLE_OPERATIONS, Alarms, Watched, tool_metric
from widget_mcp.cdk.log_queries import saved_queries

WIDTH = 12  # half the dashboard's 24 columns
HEIGHT = 6


def _graph(
    title: str,
    metrics: list[cw.IMetric],
    *,
    right: list[cw.IMetric] | None = None,
    annotations: list[cw.HorizontalAnnotation] | None = None,
    stacked: bool = False,
) -> cw.GraphWidget:
    return cw.GraphWidget(
        title=title,
        left=metrics,
        right=right,
        left_annotations=annotations,
        stacked=stacked,
        width=WIDTH,
        height=HEIGHT,
    )


class OperationsDashboard(Construct):
    """A CloudWatch dashboard: calls, errors by code, latency per tool, concurrency, table capacity, and the alarms."""

    def __init__(self, scope: Construct, construct_id: str, *, watched: Watched, alarms: Alarms) -> None:
        super().__init__(scope, construct_id)
        w, endpoint = watched, watched.endpoint
        tools = [t.name for t in w.tools]
        service = endpoint.service
        errors_by_code = next(q for q in saved_queries() if q.slug == "errors-by-code")
        reserve: list[cw.HorizontalAnnotation] = []
        if endpoint.reserved_concurrency is not None:
            reserve = [cw.HorizontalAnnotation(value=endpoint.reserved_concurrency, label="reserved")]
        self.dashboard = cw.Dashboard(
            self,
            "Dashboard",
            dashboard_name=f"{cdk.Stack.of(self).stack_name}-operations",
            default_interval=cdk.Duration.hours(3),
            widgets=[
                [cw.AlarmStatusWidget(title="Alarms", alarms=list(alarms.alarms), width=24, height=4)],
                [
                    _graph(
                        "Tool calls", [tool_metric(names.INVOCATIONS, t, "Sum", service) for t in tools], stacked=True
                    ),
                    cw.LogQueryWidget(
                        title="Errors by code",
                        log_group_names=[endpoint.function_logs.log_group_name],
                        query_string=errors_by_code.text,
                        view=cw.LogQueryVisualizationType.TABLE,
                        width=WIDTH,
                        height=HEIGHT,
                    ),
                ],
                [
                    _graph("Latency p50 (ms)", [tool_metric(names.LATENCY, t, "p50", service) for t in tools]),
                    _graph(
                        "Latency p99 (ms)",
                        [tool_metric(names.LATENCY, t, "p99", service) for t in tools],
                        annotations=[cw.HorizontalAnnotation(value=levels.WARM_P99_MS, label="objective")],
                    ),
                ],
                [
                    _graph(
                        "Concurrent executions",
                        [endpoint.function.metric("ConcurrentExecutions", period=levels.PERIOD, statistic="Maximum")],
                        right=[endpoint.function.metric_throttles(period=levels.PERIOD, statistic="Sum")],
                        annotations=reserve,
                    ),
                    _graph(
                        "Table capacity (units)",
                        [
                            w.table.metric_consumed_read_capacity_units(period=levels.PERIOD, statistic="Sum"),
                            w.table.metric_consumed_write_capacity_units(period=levels.PERIOD, statistic="Sum"),
                        ],
                        right=[
                            w.table.metric_throttled_requests_for_operations(
                                operations=list(TABLE_OPERATIONS), period=levels.PERIOD
                            )
                        ],
                    ),
                ],
                [
                    _graph(
                        "API requests",
                        [endpoint.api.metric_count(period=levels.PERIOD, statistic="Sum")],
                        right=[
                            endpoint.api.metric_server_error(period=levels.PERIOD),
                            alarms.derived.api_throttled,
                        ],
                    ),
                    _graph(
                        "Server faults and internal errors",
                        [alarms.derived.server_faults, alarms.derived.internal_errors],
                        right=[alarms.derived.calls],
                    ),
                ],
            ],
        )
