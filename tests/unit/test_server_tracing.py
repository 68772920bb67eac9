"""The SDK's OpenTelemetry span middleware is only kept when a tracer provider would record its spans."""

from __future__ import annotations

from typing import Any

import pytest
from mcp.server._otel import OpenTelemetryMiddleware
from opentelemetry import trace
from widget_mcp.server import build_runtime, build_server
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.wiring import build_books


class InstalledProvider(trace.TracerProvider):
    """Stands for an OpenTelemetry SDK provider, as ADOT's Lambda layer installs before the handler loads."""

    def get_tracer(self, *args: Any, **kwargs: Any) -> trace.Tracer:
        return trace.NoOpTracer()


def _middleware_kinds() -> list[type]:
    settings = Settings()
    server = build_server(build_runtime(settings, build_books(settings, InMemoryDocumentStore())))
    return [type(m) for m in server.middleware]


def test_without_a_tracer_provider_requests_are_not_wrapped_in_spans() -> None:
    assert OpenTelemetryMiddleware not in _middleware_kinds()


def test_with_a_tracer_provider_installed_the_sdks_spans_stay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trace, "get_tracer_provider", InstalledProvider)
    assert OpenTelemetryMiddleware in _middleware_kinds()
