"""Operations in the synthesized stack: the alarms (every one into one encrypted topic, thresholds from the service
levels), the dashboard and the saved queries, on by default, off with `-c monitoring=off`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Template
from synth_support import NO_BUNDLING, Synthesized, function_env
from widget_mcp.cdk import service_levels as levels
from widget_mcp.cdk.config import DEFAULT_RESERVED_CONCURRENCY, ConfigError, ServiceOptions
from widget_mcp.cdk.function_telemetry import INVOCATIONS, LATENCY, NAMESPACE, SERVICE, service_of
from widget_mcp.cdk.log_queries import saved_queries
from widget_mcp.cdk.mcp_api import TIMEOUT
from widget_mcp.cdk.served_apps import served_tools

from infra.app import build_app

# What issue 34 asks the stack to watch, by the slug each alarm's name ends with (infra/README.md, "Runbook").
WATCHED = {
    "function-errors",
    "function-throttles",
    "function-duration-p99",
    "concurrency-near-reserve",
    "api-5xx-rate",
    "api-429-surge",
    "table-throttles",
    "table-system-errors",
    "internal-errors",
    "tool-fault-rate",
}


def _alarms(template: Template) -> dict[str, dict[str, Any]]:
    """Every alarm's properties, by the slug after the stack's name."""
    found = template.find_resources("AWS::CloudWatch::Alarm")
    return {r["Properties"]["AlarmName"].split("-", 1)[1]: r["Properties"] for r in found.values()}


def _metric_stat(alarm: dict[str, Any]) -> dict[str, Any]:
    """The one metric a single-metric alarm reads (CDK writes it as a query when the metric has a label)."""
    (query,) = alarm["Metrics"]
    stat: dict[str, Any] = query["MetricStat"]
    return stat


def _variant(fake_bundles: Path, tmp_path: Path, **context: str) -> Template:
    app, stack = build_app(outdir=str(tmp_path), context={**NO_BUNDLING, **context}, bundle_dir=fake_bundles)
    app.synth()  # cdk-nag runs here too
    return Template.from_stack(stack)


def test_the_stack_carries_every_alarm_the_issue_names_and_a_latency_alarm_per_tool(synthesized: Synthesized) -> None:
    alarms = _alarms(synthesized.template)
    answering = {f"latency-p99-{t.name}" for t in served_tools(ServiceOptions().apps) if t.answers_in_call}
    assert answering, "the registry serves tools; none were found"
    assert set(alarms) == WATCHED | answering


def test_every_alarm_and_its_recovery_go_to_one_topic_encrypted_with_a_rotated_key(synthesized: Synthesized) -> None:
    template = synthesized.template
    (topic_id,) = template.find_resources("AWS::SNS::Topic")
    for slug, alarm in _alarms(template).items():
        assert alarm["AlarmActions"] == [{"Ref": topic_id}], slug
        assert alarm["OKActions"] == [{"Ref": topic_id}], slug
        assert alarm["TreatMissingData"] == "notBreaching", slug
        assert f"'{slug}'" in alarm["AlarmDescription"], "the description names the runbook's entry"
    topic = template.find_resources("AWS::SNS::Topic")[topic_id]["Properties"]
    key_id = topic["KmsMasterKeyId"]["Fn::GetAtt"][0]
    key = template.find_resources("AWS::KMS::Key")[key_id]["Properties"]
    assert key["EnableKeyRotation"] is True
    granted = [
        s for s in key["KeyPolicy"]["Statement"] if s.get("Principal") == {"Service": "cloudwatch.amazonaws.com"}
    ]
    assert granted
    assert "kms:GenerateDataKey*" in granted[0]["Action"]
    assert template.find_resources("AWS::SNS::Subscription") == {}, "no address is subscribed unless one is given"


def test_the_thresholds_derive_from_the_service_levels_and_the_functions_limits(synthesized: Synthesized) -> None:
    alarms = _alarms(synthesized.template)
    assert alarms["tool-fault-rate"]["Threshold"] == levels.FAULT_RATE_PERCENT
    assert alarms["api-5xx-rate"]["Threshold"] == levels.FAULT_RATE_PERCENT
    assert alarms["api-429-surge"]["Threshold"] == levels.THROTTLED_PERCENT
    assert alarms["function-duration-p99"]["Threshold"] == TIMEOUT.to_milliseconds() * levels.TIMEOUT_FRACTION
    assert alarms["concurrency-near-reserve"]["Threshold"] == DEFAULT_RESERVED_CONCURRENCY * levels.CONCURRENCY_FRACTION
    assert alarms["function-duration-p99"]["ExtendedStatistic"] == "p99"
    for slug, alarm in alarms.items():
        if slug.startswith("latency-p99-"):
            assert alarm["Threshold"] == levels.WARM_P99_MS
            assert alarm["EvaluationPeriods"] == levels.EVALUATION
            assert _metric_stat(alarm)["Period"] == levels.PERIOD.to_seconds()


def _tool_metric_services(template: Template) -> set[str]:
    """The `service` dimension of every tool metric the alarms and the dashboard read."""
    services = set()
    for alarm in _alarms(template).values():
        for query in alarm.get("Metrics", []):
            dimensions = {
                d["Name"]: d["Value"] for d in query.get("MetricStat", {}).get("Metric", {}).get("Dimensions", [])
            }
            if "tool" in dimensions:
                services.add(dimensions["service"])
    (dashboard,) = template.find_resources("AWS::CloudWatch::Dashboard").values()
    body = json.loads(
        "".join(p if isinstance(p, str) else "" for p in dashboard["Properties"]["DashboardBody"]["Fn::Join"][1])
    )
    for widget in body["widgets"]:
        for metric in widget.get("properties", {}).get("metrics", []):
            if NAMESPACE in metric and (INVOCATIONS in metric or LATENCY in metric):
                services.add(metric[metric.index("service") + 1])
    return services


def test_tool_alarms_read_the_namespace_and_service_the_function_is_given(synthesized: Synthesized) -> None:
    env = function_env(synthesized.template)
    service = service_of(synthesized.stack.stack_name)
    assert (env["POWERTOOLS_METRICS_NAMESPACE"], env["POWERTOOLS_SERVICE_NAME"]) == (NAMESPACE, service)
    latency = [a for slug, a in _alarms(synthesized.template).items() if slug.startswith("latency-p99-")]
    for alarm in latency:
        metric = _metric_stat(alarm)["Metric"]
        assert (metric["Namespace"], metric["MetricName"]) == (NAMESPACE, LATENCY)
        dimensions = {d["Name"]: d["Value"] for d in metric["Dimensions"]}
        assert dimensions == {"tool": alarm["AlarmName"].split("latency-p99-")[1], "service": service}
    assert _tool_metric_services(synthesized.template) == {service}


def test_two_stacks_in_one_account_write_and_watch_tool_metrics_under_their_own_service(
    fake_bundles: Path, tmp_path: Path
) -> None:
    seen = {}
    for name in ("WidgetMcpBlue", "WidgetMcpGreen"):
        template = _variant(fake_bundles, tmp_path / name, stackName=name)
        seen[name] = (function_env(template)["POWERTOOLS_SERVICE_NAME"], _tool_metric_services(template))
    assert seen == {name: (service_of(name), {service_of(name)}) for name in seen}
    assert service_of("WidgetMcpBlue") != service_of("WidgetMcpGreen") != SERVICE


def test_the_fault_rate_alarm_counts_server_faults_against_all_tool_calls(synthesized: Synthesized) -> None:
    alarm = _alarms(synthesized.template)["tool-fault-rate"]
    by_id = {q["Id"]: q for q in alarm["Metrics"]}
    expression = next(q["Expression"] for q in alarm["Metrics"] if "Expression" in q)
    assert expression == "IF(calls > 0, 100 * faults / calls, 0)"
    assert by_id["faults"]["MetricStat"]["Metric"]["MetricName"] == "ToolServerFaults"
    assert by_id["calls"]["MetricStat"]["Metric"]["MetricName"] == "ToolCalls"


def test_one_dashboard_graphs_calls_and_latency_of_every_served_tool_concurrency_capacity_and_errors_by_code(
    synthesized: Synthesized,
) -> None:
    (dashboard,) = synthesized.template.find_resources("AWS::CloudWatch::Dashboard").values()
    body = json.dumps(dashboard["Properties"]["DashboardBody"])
    for tool in served_tools(ServiceOptions().apps):
        assert body.count(f'\\"tool\\",\\"{tool.name}\\"') >= 3, f"{tool.name}: calls, p50 and p99"
    for name in (
        INVOCATIONS,
        LATENCY,
        "ConcurrentExecutions",
        "ConsumedReadCapacityUnits",
        "ConsumedWriteCapacityUnits",
    ):
        assert name in body
    assert '\\"stat\\":\\"p50\\"' in body
    assert '\\"stat\\":\\"p99\\"' in body
    assert "stats count(*) as calls by error_code" in body, "errors by code come from the failed calls' lines"
    assert '\\"type\\":\\"alarm\\"' in body, "the alarms' states"


def test_the_saved_queries_are_stack_resources_on_the_log_groups_they_read(synthesized: Synthesized) -> None:
    definitions = synthesized.template.find_resources("AWS::Logs::QueryDefinition")
    by_slug = {d["Properties"]["Name"].rsplit("/", 1)[1]: d["Properties"] for d in definitions.values()}
    assert set(by_slug) == {q.slug for q in saved_queries()}
    assert {"slowest-calls", "errors-by-code", "one-caller"} <= set(by_slug)
    groups = synthesized.template.find_resources("AWS::Logs::LogGroup")
    for query in saved_queries():
        found = by_slug[query.slug]
        assert found["QueryString"] == query.text
        (group_id,) = [g for g in groups if found["LogGroupNames"] == [{"Ref": g}]]
        assert ("AccessLogs" in group_id) == (query.group == "access"), query.slug


def test_an_alarm_email_subscribes_that_address_and_no_reserve_means_no_concurrency_alarm(
    fake_bundles: Path, tmp_path: Path
) -> None:
    template = _variant(fake_bundles, tmp_path, alarmEmail="ops@example.com", reservedConcurrency="none")
    template.has_resource_properties("AWS::SNS::Subscription", {"Protocol": "email", "Endpoint": "ops@example.com"})
    assert "concurrency-near-reserve" not in _alarms(template)
    assert "function-throttles" in _alarms(template)


def test_monitoring_off_leaves_out_alarms_topic_dashboard_and_queries(fake_bundles: Path, tmp_path: Path) -> None:
    template = _variant(fake_bundles, tmp_path, monitoring="off")
    for kind in (
        "AWS::CloudWatch::Alarm",
        "AWS::SNS::Topic",
        "AWS::CloudWatch::Dashboard",
        "AWS::Logs::QueryDefinition",
        "AWS::Logs::MetricFilter",
    ):
        assert template.find_resources(kind) == {}, kind
    assert template.find_resources("AWS::Lambda::Function"), "the rest of the stack stays"


@pytest.mark.parametrize(
    ("context", "sentence"),
    [
        ({"alarmEmail": "not an address"}, "alarmEmail must be one email address"),
        ({"alarmEmail": "a@example.com,b@example.com"}, "alarmEmail must be one email address"),
        ({"alarmEmail": "ops@example.com", "monitoring": "off"}, "alarmEmail has no use with monitoring=off"),
        ({"monitoring": "maybe"}, "monitoring must be on or off"),
    ],
)
def test_a_bad_operations_context_is_refused_with_a_sentence_naming_its_key(
    context: dict[str, str], sentence: str
) -> None:
    app = cdk.App(context=context)
    with pytest.raises(ConfigError, match=sentence):
        ServiceOptions.from_context(app.node)


def test_the_runbook_has_an_entry_for_every_alarm_the_stack_carries(synthesized: Synthesized) -> None:
    runbook = (Path(__file__).resolve().parents[2] / "infra" / "README.md").read_text().split("### Runbook")[1]
    for slug in _alarms(synthesized.template):
        entry = "latency-p99-<tool>" if slug.startswith("latency-p99-") else slug
        assert f"| `{entry}` |" in runbook, f"infra/README.md's runbook has no row for {entry}"
