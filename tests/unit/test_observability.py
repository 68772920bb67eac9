import contextvars
import re
from collections.abc import Callable
from typing import Any

import pytest
from aws_lambda_powertools import Tracer
from telemetry_capture import written_lines
from widget_mcp.observability import Observability, ToolTelemetry
from widget_mcp.settings import Settings
from widget_mcp.toolkit.call import ToolCall
from widget_mcp.toolkit.principal import resolve_principal


def test_no_tracer_is_built_unless_tracing_is_on() -> None:
    assert Observability(Settings()).tracer is None


def test_tracing_on_builds_a_powertools_tracer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", "true")  # no X-Ray daemon here
    assert isinstance(Observability(Settings(tracing=True)).tracer, Tracer)


def _telemetry_lines(
    capsys: pytest.CaptureFixture[str], run: Callable[[ToolTelemetry], None], service: str = "svc"
) -> list[dict[str, Any]]:
    """What a run of the telemetry prints (EMF) and logs, in order of kind: the EMF documents, then the log lines.

    Powertools keeps one logger per service name for the process: the keys a run adds are cleared after it."""
    obs = Observability(Settings(POWERTOOLS_SERVICE_NAME=service, POWERTOOLS_METRICS_NAMESPACE="Ns"))
    with written_lines(obs.logger, capsys) as lines:
        obs.logger.set_correlation_id("req-1")
        run(ToolTelemetry(obs))
    return lines


def _call(source_hint: dict[str, Any]) -> ToolCall:
    principal = resolve_principal(source_hint, None, trust_hints=True)
    return ToolCall(tool="t", principal=principal, request_meta=source_hint, request_id=None)


def _without_clock(line: dict[str, Any]) -> dict[str, Any]:
    """A line without what changes from run to run: the time, and the source line of the logging call."""
    line = {**line, "location": line["location"].split(":")[0]} if "location" in line else dict(line)
    line.pop("timestamp", None)
    if "_aws" in line:
        line["_aws"] = {k: v for k, v in line["_aws"].items() if k != "Timestamp"}
    return line


_METRICS = [
    {"Name": "DynamoDbCapacityUnits", "Unit": "Count"},
    {"Name": "ToolInvocations", "Unit": "Count"},
    {"Name": "ToolErrors", "Unit": "Count"},
    {"Name": "ToolLatency", "Unit": "Milliseconds"},
]
_DIRECTIVE = {"CloudWatchMetrics": [{"Namespace": "Ns", "Dimensions": [["tool", "service"]], "Metrics": _METRICS}]}


def test_a_successful_tool_call_writes_one_emf_document_carrying_the_log_fields_and_no_log_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    monkeypatch.setenv("_X_AMZN_TRACE_ID", "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=0")

    def run(telemetry: ToolTelemetry) -> None:
        telemetry._logger.append_keys(function_name="fn", function_request_id="inv-1", cold_start=False)
        telemetry.started("chess_move", _call({"openai/subject": "u"}))
        telemetry.capacity("GetItem", 0.5)
        telemetry.capacity("PutItem", 1.0)
        telemetry.finished("chess_move", None, 0.0012345)

    [raw_emf] = _telemetry_lines(capsys, run)
    assert _without_clock(raw_emf) == {
        "_aws": _DIRECTIVE,
        "tool": "chess_move",
        "service": "svc",
        "level": "INFO",
        "message": "tool call finished",
        "correlation_id": "req-1",
        "function_name": "fn",
        "function_request_id": "inv-1",
        "cold_start": False,
        "xray_trace_id": "1-5759e988-bd862e3fe1be46a994272793",
        "principal_source": "openai",
        "duration_ms": 1.234,
        "DynamoDbCapacityUnits": [0.5, 1.0],
        "ToolInvocations": [1.0],
        "ToolErrors": [0.0],
        "ToolLatency": [1.234],
    }
    assert list(raw_emf)[:3] == ["_aws", "tool", "service"]
    assert list(raw_emf)[-4:] == ["DynamoDbCapacityUnits", "ToolInvocations", "ToolErrors", "ToolLatency"]
    assert isinstance(raw_emf["_aws"]["Timestamp"], int)


def test_log_keys_named_like_a_dimension_or_a_metric_never_change_the_metrics(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)

    def run(telemetry: ToolTelemetry) -> None:
        telemetry._logger.append_keys(
            tool="another_tool", ToolLatency="slow", customer_tier="gold", _aws={"CloudWatchMetrics": []}
        )
        telemetry.started("display_demo", _call({}))
        telemetry.finished("display_demo", None, 0.002)

    [emf] = _telemetry_lines(capsys, run)
    assert emf["_aws"]["CloudWatchMetrics"][0]["Dimensions"] == [["tool", "service"]]
    assert (emf["tool"], emf["service"], emf["ToolLatency"]) == ("display_demo", "svc", [2.0])
    assert emf["customer_tier"] == "gold"  # a key of the log line's, as metadata: searchable, never a dimension
    assert [m["Name"] for m in emf["_aws"]["CloudWatchMetrics"][0]["Metrics"]] == [
        "ToolInvocations",
        "ToolErrors",
        "ToolLatency",
    ]  # a key named `_aws` would have replaced the directive, and with it every metric


def test_telemetry_that_fails_is_logged_and_never_fails_the_call(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)

    class Broken:
        def encode(self, document: object) -> str:
            raise OSError("the log stream is gone")

    monkeypatch.setattr("widget_mcp.observability._EMF_JSON", Broken())

    def run(telemetry: ToolTelemetry) -> None:
        telemetry.started("chess_new_game", _call({}))
        telemetry.finished("chess_new_game", None, 0.002)  # raises nothing: the game is already stored

    lines = _telemetry_lines(capsys, run)
    assert [(line["level"], line["message"], line["tool"]) for line in lines] == [
        ("ERROR", "tool call telemetry failed", "chess_new_game")
    ]


def test_with_info_not_logged_a_successful_call_writes_its_bare_emf_document(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)

    def run(telemetry: ToolTelemetry) -> None:
        telemetry._logger.setLevel("WARNING")
        telemetry.started("display_demo", _call({}))
        telemetry.finished("display_demo", None, 0.001)

    [emf] = _telemetry_lines(capsys, run, service="svc-warnings-only")
    assert sorted(emf) == ["ToolErrors", "ToolInvocations", "ToolLatency", "_aws", "service", "tool"]


def test_a_failed_tool_call_is_counted_as_an_error_and_logged_as_a_warning(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)

    def run(telemetry: ToolTelemetry) -> None:
        telemetry.started("display_demo", _call({}))
        telemetry.finished("display_demo", "invalid_arguments", 0.5)

    raw_emf, raw_log = _telemetry_lines(capsys, run)
    emf, log = _without_clock(raw_emf), _without_clock(raw_log)
    assert (
        emf
        == {  # the warning line carries the fields: the document stays bare, so no query counts them twice
            "_aws": {"CloudWatchMetrics": [{**_DIRECTIVE["CloudWatchMetrics"][0], "Metrics": _METRICS[1:]}]},
            "tool": "display_demo",
            "service": "svc",
            "ToolInvocations": [1.0],
            "ToolErrors": [1.0],
            "ToolLatency": [500.0],
        }
    )
    assert log == {
        "level": "WARNING",
        "location": "finished",
        "message": "tool call failed",
        "service": "svc",
        "correlation_id": "req-1",
        "tool": "display_demo",
        "principal_source": "anonymous",
        "error_code": "invalid_arguments",
        "duration_ms": 500.0,
    }
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}[+-]\d{4}", raw_log["timestamp"])
    assert list(raw_log) == ["level", "location", "message", "timestamp", *list(log)[3:]]


def test_the_tool_keys_leave_the_log_with_the_call(capsys: pytest.CaptureFixture[str]) -> None:
    def run(telemetry: ToolTelemetry) -> None:
        telemetry.started("display_demo", _call({}))
        telemetry.finished("display_demo", None, 0.001)
        telemetry._logger.info("after the call")

    after = _telemetry_lines(capsys, run)[-1]
    assert after["message"] == "after the call"
    assert "tool" not in after
    assert "principal_source" not in after


def test_with_metrics_disabled_a_successful_call_logs_its_info_line_with_the_same_fields(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")

    def run(telemetry: ToolTelemetry) -> None:
        telemetry.started("display_demo", _call({"openai/subject": "u"}))
        telemetry.capacity("GetItem", 0.5)
        telemetry.finished("display_demo", None, 0.001)

    [log] = _telemetry_lines(capsys, run)
    assert _without_clock(log) == {
        "level": "INFO",
        "location": "finished",
        "message": "tool call finished",
        "service": "svc",
        "correlation_id": "req-1",
        "tool": "display_demo",
        "principal_source": "openai",
        "duration_ms": 1.0,
    }


def test_concurrent_calls_each_report_only_the_capacity_they_consumed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)

    def run(telemetry: ToolTelemetry) -> None:
        # Two calls interleaved, each in its own context, as a local server's concurrent requests are.
        first, second = contextvars.copy_context(), contextvars.copy_context()
        first.run(telemetry.started, "chess_move", _call({"openai/subject": "a"}))
        second.run(telemetry.started, "chess_show_game", _call({}))
        first.run(telemetry.capacity, "PutItem", 1.0)
        second.run(telemetry.capacity, "GetItem", 0.5)
        first.run(telemetry.finished, "chess_move", None, 0.001)
        second.run(telemetry.finished, "chess_show_game", None, 0.001)

    documents = [line for line in _telemetry_lines(capsys, run) if "_aws" in line]
    assert [(d["tool"], d["principal_source"], d["DynamoDbCapacityUnits"]) for d in documents] == [
        ("chess_move", "openai", [1.0]),
        ("chess_show_game", "anonymous", [0.5]),
    ]
