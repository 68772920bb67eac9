"""Powertools logging, metrics and tracing, created once per process.

Logs are JSON with the API Gateway request id as correlation id and the tool name per call; metrics are EMF,
one document per tool call (invocations, errors, latency, and the DynamoDB capacity the call consumed) with the
tool as dimension.

A successful tool call writes one line: its EMF document carries what its log line would carry (the logger's
keys, the message, principal source and duration) as EMF metadata, top-level keys that Logs Insights reads like
a log line's fields and CloudWatch never turns into dimensions. A failed call writes its EMF document and its own
WARNING line. With metrics off a success is an ordinary INFO log line; with INFO not logged, its document is bare.

A tool call pays for this once (bench/README.md, "Telemetry per tool call"): its metrics go straight to
Powertools' EMF serializer and are printed as `flush_metrics` prints them, without `add_metric`'s per-value
validation and debug formatting (the names and units are fixed here); its log line carries the call's keys as
`extra` instead of adding them to the logger's context and removing them again; and Powertools only tries to
read a message as JSON when it looks like a JSON object or array.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.metrics.functions import is_metrics_disabled
from aws_lambda_powertools.shared.constants import XRAY_TRACE_ID_ENV

from widget_mcp.settings import Settings
from widget_mcp.toolkit.call import ToolCall

if TYPE_CHECKING:
    from aws_lambda_powertools import Tracer

# The tool call running in this context, from `started` to `finished`: its principal source and session.
_CALL: ContextVar[ToolCall | None] = ContextVar("widget_mcp_call", default=None)
# The DynamoDB capacity the call running in this context consumed. Per context, not per process: a local server
# runs calls concurrently, and one call's capacity must not land in another call's metrics. Sync tools run in a
# worker thread that gets a copy of the context, and so the same list.
_CAPACITY: ContextVar[list[float] | None] = ContextVar("widget_mcp_capacity", default=None)
_STANDARD_RESOLUTION = 60  # seconds: Powertools' default, left out of the EMF definitions as it does
# The formatter's placeholders (`%(levelname)s`, …) for the fields a record fills in: not the call's fields.
_RECORD_KEYS = frozenset(("level", "location", "message", "timestamp"))
_SUCCESS = "tool call finished"
# What a call's EMF metadata must never hold: a key named like a dimension would replace the dimension's value, one
# named like a metric would be replaced by it.
# `_aws` holds the metric directive itself: a key of that name would erase every metric of the document.
_DOCUMENT_KEYS = frozenset(
    ("_aws", "tool", "service", "DynamoDbCapacityUnits", "ToolInvocations", "ToolErrors", "ToolLatency")
)
# JSON encoders built once: `json.dumps` with any option builds a new encoder on every call. The EMF document's is
# `flush_metrics`' (`json.dumps(metrics, separators=(",", ":"))`); the log line's is the Powertools formatter's.
_EMF_JSON = json.JSONEncoder(separators=(",", ":"), default=str)  # metadata may hold what the log line would str()
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
    """The toolkit's CallObserver: one line per successful tool call (its EMF document, carrying the log fields),
    an EMF document and a WARNING line per failed one. Never logs request hints, nor ids: a call that acts on a
    widget session (a game, a form) carries `ref`, a keyed reference to its id (`refs`: log_refs.py), if set."""

    def __init__(self, obs: Observability, refs: Callable[[str], str | None] | None = None) -> None:
        self.refs = refs
        self._logger = obs.logger
        self._metrics = obs.metrics
        self._emit_metrics = not is_metrics_disabled()
        service = obs.metrics.service
        self._service_dimension = {"service": service} if service else {}
        self._formatter = obs.logger.registered_formatter
        # The standard library's check, cached until the level changes (Powertools' debug sampling sets it).
        self._logs_info = logging.getLogger(obs.logger.name).isEnabledFor

    def started(self, tool: str, call: ToolCall) -> None:
        _CALL.set(call)
        _CAPACITY.set([])

    def capacity(self, operation: str, units: float) -> None:
        """DynamoDB capacity a call consumed; sent with the call's other metrics (what the table bills)."""
        consumed = _CAPACITY.get()
        if self._emit_metrics and consumed is not None:
            consumed.append(float(units))

    def finished(self, tool: str, error_code: str | None, seconds: float) -> None:
        # Runs after the call's work is done (and its writes made): telemetry that fails must not fail the call,
        # or a client would retry a write that already happened.
        millis = round(seconds * 1000, 3)
        call = _CALL.get()
        source = call.principal.source if call is not None else None
        try:
            ref = self._ref(call)
            if error_code is None:
                if not self._emit_metrics:
                    extra = {"tool": tool, "principal_source": source, "duration_ms": millis}
                    self._logger.info(_SUCCESS, extra=extra if ref is None else {**extra, "ref": ref})
                    return
                metadata = self._log_fields(source, millis, ref) if self._logs_info(logging.INFO) else {}
                self._flush(tool, False, millis, metadata)
                return
            if self._emit_metrics:
                self._flush(tool, True, millis, {})
            keys = {"tool": tool, "principal_source": source, "error_code": error_code, "duration_ms": millis}
            self._logger.warning("tool call failed", extra=keys if ref is None else {**keys, "ref": ref})
        except Exception:
            self._logger.exception("tool call telemetry failed", extra={"tool": tool})

    def _ref(self, call: ToolCall | None) -> str | None:
        if self.refs is None or call is None or call.session_id is None:
            return None
        return self.refs(call.session_id)

    def _log_fields(self, principal_source: str | None, millis: float, ref: str | None) -> dict[str, Any]:
        """What the success's INFO line would carry besides the tool, its time and location: the level and message,
        the logger's keys (correlation id, function, request id, cold start, …), the trace id, the principal
        source and the duration; without empty values, as Powertools drops them."""
        fields: dict[str, Any] = {"level": "INFO", "message": _SUCCESS}
        logger_keys = self._formatter.get_current_keys()
        for keys in (logger_keys, self._formatter.thread_safe_get_current_keys()):
            for key, value in keys.items():
                if value is not None and key not in _RECORD_KEYS and key not in _DOCUMENT_KEYS:
                    fields[key] = value
        trace = os.environ.get(XRAY_TRACE_ID_ENV)
        if trace and logger_keys.get("xray_trace_id", "") is not None:  # None: switched off, as Powertools reads it
            fields["xray_trace_id"] = trace.split(";")[0].replace("Root=", "")
        if principal_source is not None:
            fields["principal_source"] = principal_source
        if ref is not None:
            fields["ref"] = ref
        fields["duration_ms"] = millis
        return fields

    def _flush(self, tool: str, failed: bool, millis: float, metadata: dict[str, Any]) -> None:
        """One EMF document per call: the tool dimension must not leak into another call's metrics."""
        metrics: dict[str, dict[str, Any]] = {}
        consumed = _CAPACITY.get()
        if consumed:
            metrics["DynamoDbCapacityUnits"] = _metric(MetricUnit.Count, consumed)
        metrics["ToolInvocations"] = _metric(MetricUnit.Count, [1.0])
        metrics["ToolErrors"] = _metric(MetricUnit.Count, [1.0 if failed else 0.0])
        metrics["ToolLatency"] = _metric(MetricUnit.Milliseconds, [millis])
        dimensions = {"tool": tool, **self._service_dimension}
        document = self._metrics.serialize_metric_set(metrics=metrics, dimensions=dimensions, metadata=metadata)
        sys.stdout.write(_EMF_JSON.encode(document) + "\n")  # the line Powertools' flush_metrics prints
