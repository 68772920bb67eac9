import pytest
from aws_lambda_powertools import Tracer
from widget_mcp.observability import Observability
from widget_mcp.settings import Settings


def test_no_tracer_is_built_unless_tracing_is_on() -> None:
    assert Observability(Settings()).tracer is None


def test_tracing_on_builds_a_powertools_tracer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", "true")  # no X-Ray daemon here
    assert isinstance(Observability(Settings(tracing=True)).tracer, Tracer)
