"""The alarms' metric filters and the saved queries read what the function really writes: its telemetry's lines for
a success, a user error and a server fault are fed to the synthesized filter patterns, and every field a query reads
is one those lines (or the API's access log format) carry."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from synth_support import Synthesized
from telemetry_capture import written_lines
from widget_mcp.cdk import function_telemetry as names
from widget_mcp.cdk.alarms import API_THROTTLED, CALLS, INTERNAL_ERRORS, SERVER_FAULTS
from widget_mcp.cdk.log_queries import EXAMPLE_REF, saved_queries
from widget_mcp.cdk.mcp_api import ACCESS_LOG_FORMAT
from widget_mcp.cdk.service_levels import SERVER_FAULT_CODES
from widget_mcp.log_refs import reference
from widget_mcp.observability import Observability, ToolTelemetry
from widget_mcp.settings import Settings
from widget_mcp.toolkit.call import ToolCall
from widget_mcp.toolkit.principal import resolve_principal

KEY = b"k" * 40
GAME = "a-game-id"
# Logs Insights' own words and the names a query gives its results.
QUERY_WORDS = {"fields", "filter", "sort", "desc", "asc", "limit", "stats", "count", "as", "by", "ispresent", "calls"}


def _lines_of_calls(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, outcomes: list[str | None]
) -> list[dict[str, Any]]:
    """Every line the function's telemetry writes for calls ending in these error codes (None: success), with the
    settings the stack gives it and a correlation id: the EMF documents it prints, then the log lines (the logger
    prints these too, so they are read once, from the handler)."""
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    obs = Observability(Settings(POWERTOOLS_SERVICE_NAME=names.SERVICE, POWERTOOLS_METRICS_NAMESPACE=names.NAMESPACE))
    telemetry = ToolTelemetry(obs, refs=lambda session: reference(KEY, session))
    principal = resolve_principal({"openai/subject": "u"}, None, trust_hints=True)
    with written_lines(obs.logger, capsys) as lines:
        obs.logger.set_correlation_id("req-1")
        for code in outcomes:
            call = ToolCall(tool="chess_move", principal=principal, request_meta={}, session_id=GAME)
            telemetry.started("chess_move", call)
            if code == "internal_error":  # masked: its traceback is logged first (toolkit/failures.py)
                try:
                    raise RuntimeError("boom")
                except RuntimeError:
                    obs.logger.exception("tool chess_move failed unexpectedly", extra={"tool": "chess_move"})
            telemetry.finished("chess_move", code, 0.25)
    return lines


def _matches(pattern: str, line: dict[str, Any]) -> bool:
    """CloudWatch's JSON filter syntax, as far as the stack's patterns use it: `$.field = "value"` terms joined
    with && and || in parentheses."""
    body = pattern.strip()
    assert body.startswith("{") and body.endswith("}"), pattern  # noqa: PT018 - one shape, said once
    term = re.compile(r'\$\.([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"([^"]*)"')
    python = term.sub(lambda m: repr(str(line.get(m[1])) == m[2]), body[1:-1])
    python = python.replace("&&", " and ").replace("||", " or ")
    assert re.fullmatch(r"[\s()TrueFalsandor]*", python), f"the pattern uses more than this reads: {pattern}"
    return bool(eval(python))  # only True/False, and/or and parentheses are left, checked above


def _filters(synthesized: Synthesized) -> dict[str, str]:
    found = synthesized.template.find_resources("AWS::Logs::MetricFilter")
    return {
        r["Properties"]["MetricTransformations"][0]["MetricName"]: r["Properties"]["FilterPattern"]
        for r in found.values()
    }


def _counted(pattern: str, lines: list[dict[str, Any]]) -> int:
    return sum(_matches(pattern, line) for line in lines)


def test_calls_are_counted_once_each_whatever_their_outcome(
    synthesized: Synthesized, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = _lines_of_calls(capsys, monkeypatch, [None, None, "illegal_move", "internal_error", "service_unavailable"])
    assert _counted(_filters(synthesized)[CALLS], lines) == 5


def test_only_server_faults_count_against_the_objective_and_only_internal_errors_as_such(
    synthesized: Synthesized, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    filters = _filters(synthesized)
    user_errors = ["illegal_move", "rate_limited", "invalid_arguments", "quota_exceeded", "game_not_found"]
    assert _counted(filters[SERVER_FAULTS], _lines_of_calls(capsys, monkeypatch, [None, *user_errors])) == 0
    faults = _lines_of_calls(capsys, monkeypatch, list(SERVER_FAULT_CODES))
    assert _counted(filters[SERVER_FAULTS], faults) == len(SERVER_FAULT_CODES)
    assert _counted(filters[INTERNAL_ERRORS], faults) == 1


def test_the_429_filter_counts_what_the_access_log_writes_for_a_throttled_request(synthesized: Synthesized) -> None:
    template = json.loads(ACCESS_LOG_FORMAT)
    throttled = {key: ("429" if value == "$context.status" else "x") for key, value in template.items()}
    served = {**throttled, names.ACCESS_STATUS: "200"}
    pattern = _filters(synthesized)[API_THROTTLED]
    assert _matches(pattern, throttled)
    assert not _matches(pattern, served)


def test_every_field_a_saved_query_reads_is_one_the_function_or_the_api_writes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    written = {key for line in _lines_of_calls(capsys, monkeypatch, [None, "internal_error"]) for key in line}
    fields = {"function": written | {"@timestamp"}, "access": set(json.loads(ACCESS_LOG_FORMAT)) | {"@timestamp"}}
    for query in saved_queries():
        unquoted = re.sub(r'"[^"]*"', "", query.text)
        read = set(re.findall(r"@?[A-Za-z_][A-Za-z0-9_]*", unquoted)) - QUERY_WORDS
        assert read <= fields[query.group], f"{query.slug} reads {sorted(read - fields[query.group])}"


def test_the_one_game_query_filters_on_the_ref_every_line_of_a_games_call_carries(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (query,) = [q for q in saved_queries() if q.slug == "one-game"]
    assert f'filter {names.SESSION_REF} = "{EXAMPLE_REF}"' in query.text
    lines = _lines_of_calls(capsys, monkeypatch, [None, "illegal_move", "internal_error"])
    calls = [line for line in lines if line.get(names.MESSAGE) in (names.FINISHED, names.FAILED)]
    assert len(calls) == 3
    assert {line[names.SESSION_REF] for line in calls} == {reference(KEY, GAME)}
    assert all(GAME not in json.dumps(line) for line in lines)
