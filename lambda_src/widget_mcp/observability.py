"""Powertools logging, metrics and tracing, created once per process.

Logs are JSON with the API Gateway request id as correlation id and the tool name appended per call;
metrics are EMF, one set per tool call (invocations, errors, latency) with the tool as dimension.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.metrics.functions import is_metrics_disabled

from widget_mcp.settings import Settings
from widget_mcp.toolkit.call import ToolCall

if TYPE_CHECKING:
    from aws_lambda_powertools import Tracer


class Observability:
    def __init__(self, settings: Settings) -> None:
        self.logger = Logger(service=settings.service_name, level=settings.log_level)
        self.metrics = Metrics(namespace=settings.metrics_namespace, service=settings.service_name)
        # The X-Ray SDK costs ~0.5 s of import; only functions deployed with tracing on pay for it.
        self.tracer: Tracer | None = None
        if settings.tracing:
            from aws_lambda_powertools import Tracer

            self.tracer = Tracer(service=settings.service_name)


class ToolTelemetry:
    """The toolkit's CallObserver: a log line and three metrics per tool call. Never logs request hints."""

    def __init__(self, obs: Observability) -> None:
        self._logger = obs.logger
        self._metrics = obs.metrics
        self._emit_metrics = not is_metrics_disabled()

    def started(self, tool: str, call: ToolCall) -> None:
        self._logger.thread_safe_append_keys(tool=tool, principal_source=call.principal.source)

    def capacity(self, operation: str, units: float) -> None:
        """DynamoDB capacity a call consumed; flushed with the call's other metrics (what the table bills)."""
        if self._emit_metrics:
            self._metrics.add_metric(name="DynamoDbCapacityUnits", unit=MetricUnit.Count, value=units)

    def finished(self, tool: str, error_code: str | None, seconds: float) -> None:
        millis = round(seconds * 1000, 3)
        if self._emit_metrics:
            # Flushed per call: the tool dimension must not leak into another call's metrics.
            metrics = self._metrics
            metrics.add_dimension(name="tool", value=tool)
            metrics.add_metric(name="ToolInvocations", unit=MetricUnit.Count, value=1)
            metrics.add_metric(name="ToolErrors", unit=MetricUnit.Count, value=0 if error_code is None else 1)
            metrics.add_metric(name="ToolLatency", unit=MetricUnit.Milliseconds, value=millis)
            metrics.flush_metrics()
        if error_code is None:
            self._logger.info("tool call finished", extra={"duration_ms": millis})
        else:
            self._logger.warning("tool call failed", extra={"error_code": error_code, "duration_ms": millis})
        self._logger.thread_safe_remove_keys(["tool", "principal_source"])
