"""`python -m bench.telemetry [--batches N]`: what a successful tool call pays for its Powertools telemetry,
measured in one process as CPU time per call, the variants taking turns batch by batch:

- **plain**: Powertools used the documented way, as this project did before issue 16: the call's keys appended to
  the logger context and removed after, `add_dimension` + three `add_metric` + `flush_metrics`, `logger.info`
  (two lines, a log line and an EMF document);
- **ours**: `widget_mcp.observability.ToolTelemetry` (`started` + `finished`): one line, the EMF document carrying
  the log line's fields as metadata;
- ours' INFO log line alone (what a success writes with metrics off; a failure's WARNING line costs the same) and
  ours' EMF document without the log fields (a failure's);
- a warm `display_demo` call through the Lambda handler with telemetry on, and with it muted (the snapshot
  priming switch), whose difference is what telemetry costs a call end to end.

Output goes to /dev/null, as in the other bench children; the figures are medians of the batch means.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit

from bench.events import HOST, LambdaContext, http_v2_event, tool_call

CALLS_PER_BATCH = 200


def _plain(service: str) -> Callable[[], None]:
    """The per-call telemetry as the project wrote it before: Powertools' documented calls."""
    logger = Logger(service=service)
    logger.set_correlation_id("bench")
    metrics = Metrics(namespace="Bench", service=service)

    def call() -> None:
        logger.thread_safe_append_keys(tool="display_demo", principal_source="anonymous")
        metrics.add_dimension(name="tool", value="display_demo")
        metrics.add_metric(name="ToolInvocations", unit=MetricUnit.Count, value=1)
        metrics.add_metric(name="ToolErrors", unit=MetricUnit.Count, value=0)
        metrics.add_metric(name="ToolLatency", unit=MetricUnit.Milliseconds, value=1.234)
        metrics.flush_metrics()
        logger.info("tool call finished", extra={"duration_ms": 1.234})
        logger.thread_safe_remove_keys(["tool", "principal_source"])

    return call


def _ours(service: str) -> dict[str, Callable[[], None]]:
    from widget_mcp.observability import Observability, ToolTelemetry
    from widget_mcp.settings import Settings
    from widget_mcp.toolkit.call import ToolCall
    from widget_mcp.toolkit.principal import resolve_principal

    obs = Observability(Settings(POWERTOOLS_SERVICE_NAME=service, POWERTOOLS_METRICS_NAMESPACE="Bench"))
    obs.logger.set_correlation_id("bench")
    obs.logger.append_keys(function_name="bench", function_request_id="bench-request", cold_start=False)
    telemetry = ToolTelemetry(obs)
    call = ToolCall(tool="display_demo", principal=resolve_principal({}, None))

    def whole() -> None:
        telemetry.started("display_demo", call)
        telemetry.finished("display_demo", None, 0.001234)

    def log_line() -> None:
        obs.logger.info(
            "tool call finished", extra={"tool": "display_demo", "principal_source": "anonymous", "duration_ms": 1.2}
        )

    def emf() -> None:
        telemetry._flush("display_demo", False, 1.234, {})

    return {"ours": whole, "ours: log line": log_line, "ours: EMF document": emf}


def _through_the_handler() -> dict[str, Callable[[], None]]:
    os.environ.setdefault("ALLOWED_HOSTS", HOST)
    from widget_mcp.handler import core, handler

    event, context = http_v2_event(tool_call("display_demo", {"message": "hello"})), LambdaContext()
    calls = core.calls
    assert calls is not None

    def muted(on: bool) -> Callable[[], None]:
        def call() -> None:
            calls.muted = on
            try:
                handler(event, context)
            finally:
                calls.muted = False

        return call

    return {"handler: display_demo": muted(False), "handler: display_demo, telemetry muted": muted(True)}


def measure(batches: int) -> dict[str, float]:
    """Microseconds of CPU time per call, by variant."""
    variants = {"plain": _plain("bench-plain"), **_ours("bench-ours"), **_through_the_handler()}
    for run in variants.values():  # warm up
        for _ in range(CALLS_PER_BATCH):
            run()
    samples: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(batches):
        for name, run in variants.items():
            started = time.process_time()
            for _ in range(CALLS_PER_BATCH):
                run()
            samples[name].append((time.process_time() - started) / CALLS_PER_BATCH * 1e6)
    return {name: statistics.median(values) for name, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description="Telemetry per tool call: Powertools used plainly against ours.")
    parser.add_argument("--batches", type=int, default=25, help=f"batches of {CALLS_PER_BATCH} calls per variant")
    args = parser.parse_args()
    report = os.fdopen(os.dup(1), "w")  # the telemetry prints to stdout: keep it for the report
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    us = measure(args.batches)
    width = max(map(len, us))
    report.write(f"CPU time per tool call, medians of {args.batches} batches of {CALLS_PER_BATCH}:\n")
    for name, value in us.items():
        report.write(f"  {name:<{width}}  {value:8.1f} µs\n")
    report.write(f"  ours/plain: {us['ours'] / us['plain']:.2f}×\n")
    telemetry = us["handler: display_demo"] - us["handler: display_demo, telemetry muted"]
    share = telemetry / us["handler: display_demo"]
    report.write(f"  telemetry in a handler call: {telemetry:.1f} µs ({share:.0%} of the call)\n")
    report.flush()


if __name__ == "__main__":
    main()
