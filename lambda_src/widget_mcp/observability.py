"""Powertools logging, metrics and tracing, created once per process.

Logs are JSON with the API Gateway request id as correlation id and the tool name per call; metrics are EMF,
one document per tool call (invocations, errors, latency, and the DynamoDB capacity the call consumed) with the
tool as dimension.

A tool call pays for this once (bench/README.md, "Telemetry per tool call"): its metrics go straight to
Powertools' EMF serializer and are printed as `flush_metrics` prints them, without `add_metric`'s per-value
validation and debug formatting (the names and units are fixed here); its log line carries the call's keys as
`extra` instead of adding them to the logger's context and removing them again; and Powertools only tries to
read a message as JSON when it looks like a JSON object or array.
"""

from __future__ import annotations

import json
import sys
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.metrics.functions import is_metrics_disabled

from widget_mcp.settings import Settings
from widget_mcp.toolkit.call import ToolCall

if TYPE_CHECKING:
    from aws_lambda_powertools import Tracer

# The principal source of the tool call running in this context, from `started` to `finished`.
_PRINCIPAL_SOURCE: ContextVar[str | None] = ContextVar("widget_mcp_principal_source", default=None)
# The DynamoDB capacity the call running in this context consumed. Per context, not per process: a local server
# runs calls concurrently, and one call's capacity must not land in another call's metrics. Sync tools run in a
# worker thread that gets a copy of the context, and so the same list.
_CAPACITY: ContextVar[list[float] | None] = ContextVar("widget_mcp_capacity", default=None)
_STANDARD_RESOLUTION = 60  # seconds: Powertools' default, left out of the EMF definitions as it does
# JSON encoders built once: `json.dumps` with any option builds a new encoder on every call. The EMF document's is
# `flush_metrics`' (`json.dumps(metrics, separators=(",", ":"))`); the log line's is the Powertools formatter's.
_EMF_JSON = json.JSONEncoder(separators=(",", ":"))
_LOG_JSON = json.JSONEncoder(default=str, separators=(",", ":"), ensure_ascii=False)


def _json_message(message: Any) -> Any:
    """Powertools reads a log message that is a JSON document as that document; ours are sentences, and a failed
    parse (building a JSONDecodeError) costs more than the rest of the message's formatting."""
    if isinstance(message, str) and message[:1] in ("{", "["):
        return json.loads(message)
    raise ValueError("not a JSON object or array")


class Observability:
    def __init__(self, settings: Settings) -> None:
        self.logger = Logger(service=settings.service_name, level=settings.log_level, json_deserializer=_json_message)
        formatter = self.logger.registered_formatter
        # The formatter's own serializer is `json.dumps` with these options; with POWERTOOLS_DEV it indents, and stays.
        if isinstance(formatter, LambdaPowertoolsFormatter) and formatter.json_indent is None:
            formatter.json_serializer = _LOG_JSON.encode
        self.metrics = Metrics(namespace=settings.metrics_namespace, service=settings.service_name)
        # The X-Ray SDK costs ~0.5 s of import; only functions deployed with tracing on pay for it.
        self.tracer: Tracer | None = None
        if settings.tracing:
            from aws_lambda_powertools import Tracer

            self.tracer = Tracer(service=settings.service_name)


def _metric(unit: MetricUnit, values: list[float]) -> dict[str, Any]:
    return {"Unit": unit.value, "StorageResolution": _STANDARD_RESOLUTION, "Value": values}


class ToolTelemetry:
    """The toolkit's CallObserver: a log line and one EMF document per tool call. Never logs request hints."""

    def __init__(self, obs: Observability) -> None:
        self._logger = obs.logger
        self._metrics = obs.metrics
        self._emit_metrics = not is_metrics_disabled()
        service = obs.metrics.service
        self._service_dimension = {"service": service} if service else {}

    def started(self, tool: str, call: ToolCall) -> None:
        _PRINCIPAL_SOURCE.set(call.principal.source)
        _CAPACITY.set([])

    def capacity(self, operation: str, units: float) -> None:
        """DynamoDB capacity a call consumed; sent with the call's other metrics (what the table bills)."""
        consumed = _CAPACITY.get()
        if self._emit_metrics and consumed is not None:
            consumed.append(float(units))

    def finished(self, tool: str, error_code: str | None, seconds: float) -> None:
        millis = round(seconds * 1000, 3)
        if self._emit_metrics:
            self._flush(tool, error_code is not None, millis)
        keys: dict[str, Any] = {"tool": tool, "principal_source": _PRINCIPAL_SOURCE.get()}
        if error_code is None:
            self._logger.info("tool call finished", extra={**keys, "duration_ms": millis})
        else:
            self._logger.warning("tool call failed", extra={**keys, "error_code": error_code, "duration_ms": millis})

    def _flush(self, tool: str, failed: bool, millis: float) -> None:
        """One EMF document per call: the tool dimension must not leak into another call's metrics."""
        metrics: dict[str, dict[str, Any]] = {}
        consumed = _CAPACITY.get()
        if consumed:
            metrics["DynamoDbCapacityUnits"] = _metric(MetricUnit.Count, consumed)
        metrics["ToolInvocations"] = _metric(MetricUnit.Count, [1.0])
        metrics["ToolErrors"] = _metric(MetricUnit.Count, [1.0 if failed else 0.0])
        metrics["ToolLatency"] = _metric(MetricUnit.Milliseconds, [millis])
        dimensions = {"tool": tool, **self._service_dimension}
        document = self._metrics.serialize_metric_set(metrics=metrics, dimensions=dimensions, metadata={})
        sys.stdout.write(_EMF_JSON.encode(document) + "\n")  # the line Powertools' flush_metrics prints
