"""The MCP API: the function's runtime and least privilege, SnapStart through an alias, routes, throttling, logs."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk.assertions import Match, Template
from synth_support import Synthesized
from widget_mcp.cdk.config import DEFAULT_RESERVED_CONCURRENCY, ConfigError, CustomDomain, ServiceOptions
from widget_mcp.cdk.function_telemetry import service_of
from widget_mcp.cdk.mcp_api import TIMEOUT, McpApi
from widget_mcp.cdk.served_apps import serve_tasks
from widget_mcp.toolkit.task_service import QUEUE_SLACK_SECONDS


def _function(synthesized: Synthesized) -> dict[str, Any]:
    (fn,) = [
        r
        for r in synthesized.resources("AWS::Lambda::Function").values()
        if r["Properties"].get("Handler") == "widget_mcp.handler.handler"
    ]
    return fn


def _env(synthesized: Synthesized) -> dict[str, Any]:
    variables: dict[str, Any] = _function(synthesized)["Properties"]["Environment"]["Variables"]
    return variables


def test_the_function_runs_python_3_13_on_arm64_with_snapstart_and_json_logs(synthesized: Synthesized) -> None:
    props = _function(synthesized)["Properties"]
    assert props["Runtime"] == "python3.13"
    assert props["Architectures"] == ["arm64"]
    assert props["SnapStart"] == {"ApplyOn": "PublishedVersions"}
    assert props["MemorySize"] == 1024
    assert props["Timeout"] == 20
    assert props["LoggingConfig"]["LogFormat"] == "JSON"
    assert "LogGroup" in props["LoggingConfig"]


def test_the_function_logs_to_a_log_group_with_a_retention(synthesized: Synthesized) -> None:
    retentions = [g["Properties"].get("RetentionInDays") for g in synthesized.resources("AWS::Logs::LogGroup").values()]
    assert retentions == [30, 30]  # the function's and the API's access logs


def test_api_gateway_invokes_the_published_alias_not_the_unpublished_function(synthesized: Synthesized) -> None:
    (alias_id,) = synthesized.resources("AWS::Lambda::Alias")
    synthesized.template.has_resource_properties(
        "AWS::Lambda::Alias", {"Name": "live", "FunctionVersion": Match.object_like({"Fn::GetAtt": Match.any_value()})}
    )
    (integration,) = synthesized.resources("AWS::ApiGatewayV2::Integration").values()
    assert integration["Properties"]["IntegrationUri"] == {"Ref": alias_id}
    assert integration["Properties"]["PayloadFormatVersion"] == "2.0"


def test_the_api_routes_mcp_health_and_well_known_paths(synthesized: Synthesized) -> None:
    keys = sorted(r["Properties"]["RouteKey"] for r in synthesized.resources("AWS::ApiGatewayV2::Route").values())
    # OPTIONS /mcp: with host tokens on (the default), Open WebUI's sandboxed widgets preflight their calls.
    assert keys == ["DELETE /mcp", "GET /.well-known/{proxy+}", "GET /healthz", "GET /mcp", "OPTIONS /mcp", "POST /mcp"]


def test_the_stage_throttles_every_route_and_writes_json_access_logs(synthesized: Synthesized) -> None:
    (stage,) = synthesized.resources("AWS::ApiGatewayV2::Stage").values()
    props = stage["Properties"]
    assert props["DefaultRouteSettings"] == {"ThrottlingBurstLimit": 100, "ThrottlingRateLimit": 50}
    assert props["RouteSettings"]["POST /mcp"] == {"ThrottlingRateLimit": 50, "ThrottlingBurstLimit": 100}
    assert props["RouteSettings"]["GET /healthz"] == {"ThrottlingRateLimit": 5, "ThrottlingBurstLimit": 10}
    assert json.loads(props["AccessLogSettings"]["Format"])["requestId"] == "$context.requestId"
    assert "DestinationArn" in props["AccessLogSettings"]
    routes = set(synthesized.resources("AWS::ApiGatewayV2::Route"))
    assert routes <= set(stage.get("DependsOn", [])), "route settings need the routes to exist first"


def test_the_environment_is_wired_from_the_table_cdn_and_api(synthesized: Synthesized) -> None:
    env = _env(synthesized)
    (table_id,) = synthesized.resources("AWS::DynamoDB::Table")
    (api_id,) = synthesized.resources("AWS::ApiGatewayV2::Api")
    (distribution_id,) = synthesized.resources("AWS::CloudFront::Distribution")
    assert env["TABLE_NAME"] == {"Ref": table_id}
    assert env["WIDGET_BASE_URL"] == {
        "Fn::Join": ["", ["https://", {"Fn::GetAtt": [distribution_id, "DomainName"]}, "/widgets"]]
    }
    assert env["ALLOWED_HOSTS"]["Fn::Join"][1][:2] == [{"Ref": api_id}, ".execute-api."]
    assert env["WIDGET_MANIFEST"] == "/var/task/widget_manifest.json"
    # Each stack's own service, so two stacks in one account keep their tool metrics apart.
    assert env["POWERTOOLS_SERVICE_NAME"] == service_of(synthesized.stack.stack_name)


def test_the_function_may_touch_only_its_log_group_the_table_items_and_its_keys(synthesized: Synthesized) -> None:
    role_ref = _function(synthesized)["Properties"]["Role"]["Fn::GetAtt"][0]
    role = synthesized.resources("AWS::IAM::Role")[role_ref]["Properties"]
    assert "ManagedPolicyArns" not in role
    policies = [
        p["Properties"]["PolicyDocument"]["Statement"]
        for p in synthesized.resources("AWS::IAM::Policy").values()
        if {"Ref": role_ref} in p["Properties"]["Roles"]
    ]
    statements = [s for doc in policies for s in doc]
    (table_id,) = synthesized.resources("AWS::DynamoDB::Table")
    (logs_id,) = [k for k in synthesized.resources("AWS::Logs::LogGroup") if "Function" in k]
    keys = [{"Ref": key} for key in synthesized.resources("AWS::SecretsManager::Secret")]
    (alias_id,) = synthesized.resources("AWS::Lambda::Alias")
    resources = [s["Resource"] for s in statements]
    table = {"Fn::GetAtt": [table_id, "Arn"]}
    # The table's items, then its deletes apart (only in USER# partitions: test_least_privilege.py).
    assert resources[:3] == [{"Fn::GetAtt": [logs_id, "Arn"]}, table, table]
    task_rounds = [{"Ref": alias_id}] if serve_tasks(ServiceOptions().apps) else []  # test_task_rounds_template.py
    assert sorted(map(json.dumps, resources[3:])) == sorted(map(json.dumps, [*keys, *task_rounds]))
    actions = [a for s in statements for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])]
    assert not [a for a in actions if "*" in a]
    assert not {"dynamodb:Scan", "dynamodb:DeleteTable", "dynamodb:UpdateTable"} & set(actions)


def test_task_rounds_sent_through_the_live_alias_are_never_retried_nor_kept_past_the_slack(
    synthesized: Synthesized,
) -> None:
    (alias_id,) = synthesized.resources("AWS::Lambda::Alias")
    (config,) = synthesized.resources("AWS::Lambda::EventInvokeConfig").values()
    assert config["Properties"]["Qualifier"] == {"Fn::Select": [7, {"Fn::Split": [":", {"Ref": alias_id}]}]}
    assert config["Properties"]["MaximumRetryAttempts"] == 0
    assert config["Properties"]["MaximumEventAgeInSeconds"] == QUEUE_SLACK_SECONDS
    assert _env(synthesized)["TASK_WORK_SECONDS"] == str(int(TIMEOUT.to_seconds()))


def test_the_stack_outputs_the_mcp_url_widget_base_url_and_table_name(synthesized: Synthesized) -> None:
    outputs = synthesized.template.find_outputs("*")
    assert {"McpUrl", "WidgetBaseUrl", "TableName"} <= set(outputs)
    assert outputs["McpUrl"]["Value"]["Fn::Join"][1][-1] == "/mcp"


def test_a_custom_api_domain_is_mapped_and_allowed_as_a_host(bare_stack: Callable[..., cdk.Stack]) -> None:
    stack = bare_stack()
    domain = CustomDomain("mcp.example.com", "arn:aws:acm:eu-west-1:123456789012:certificate/abc")
    api = McpApi(
        stack,
        "Api",
        table=dynamodb.Table.from_table_name(stack, "T", "state"),
        widget_base_url="https://cdn.example.com/widgets",
        widget_domain="https://cdn.example.com",
        removal_policy=cdk.RemovalPolicy.DESTROY,
        log_retention=ServiceOptions().log_retention,
        domain=domain,
        snap_start=False,
    )
    template = Template.from_stack(stack)
    template.has_resource_properties(
        "AWS::ApiGatewayV2::DomainName",
        {"DomainName": "mcp.example.com", "DomainNameConfigurations": Match.any_value()},
    )
    template.resource_count_is("AWS::ApiGatewayV2::ApiMapping", 1)
    env = template.find_resources("AWS::Lambda::Function")
    (variables,) = [f["Properties"]["Environment"]["Variables"] for f in env.values()]
    assert variables["ALLOWED_HOSTS"]["Fn::Join"][1][-1].endswith(",mcp.example.com")
    assert variables["WIDGET_DOMAIN"] == "https://cdn.example.com"
    assert "WIDGET_MANIFEST" not in variables
    assert api.mcp_url == "https://mcp.example.com/mcp"
    template.has_resource_properties("AWS::Lambda::Function", {"SnapStart": Match.absent()})


def _api_from_context(make_stack: Callable[..., cdk.Stack], **context: object) -> Template:
    stack = make_stack(**context)
    config = ServiceOptions.from_context(stack.node)
    McpApi(
        stack,
        "Api",
        table=dynamodb.Table.from_table_name(stack, "T", "state"),
        widget_base_url="https://cdn.example.com/widgets",
        widget_domain=None,
        removal_policy=config.removal_policy,
        log_retention=config.log_retention,
        throttle=config.api_throttle,
        reserved_concurrency=config.reserved_concurrency,
        cors_origins=config.cors_origins,
        anonymous_state=config.anonymous_state,
    )
    return Template.from_stack(stack)


def test_the_function_reserves_its_default_concurrency_unless_the_context_sets_another_or_none(
    bare_stack: Callable[..., cdk.Stack],
) -> None:
    _api_from_context(bare_stack).has_resource_properties(
        "AWS::Lambda::Function", {"ReservedConcurrentExecutions": DEFAULT_RESERVED_CONCURRENCY}
    )
    _api_from_context(bare_stack, reservedConcurrency="20").has_resource_properties(
        "AWS::Lambda::Function", {"ReservedConcurrentExecutions": 20}
    )
    # For accounts whose regional limit leaves no room to reserve (new accounts may start at 10).
    _api_from_context(bare_stack, reservedConcurrency="none").has_resource_properties(
        "AWS::Lambda::Function", {"ReservedConcurrentExecutions": Match.absent()}
    )


def test_the_default_reserved_concurrency_covers_the_default_throttle_at_the_longest_request_and_no_more() -> None:
    rate, _ = ServiceOptions().api_throttle
    longest_request_seconds = 2  # the work bound every request meets (ARCHITECTURE.md, "Limits every caller meets")
    assert rate * longest_request_seconds == DEFAULT_RESERVED_CONCURRENCY


def test_api_throttling_comes_from_the_context_for_the_stage_and_the_mcp_route(
    bare_stack: Callable[..., cdk.Stack],
) -> None:
    template = _api_from_context(bare_stack, apiRateLimit=7, apiBurstLimit="9")
    (stage,) = template.find_resources("AWS::ApiGatewayV2::Stage").values()
    assert stage["Properties"]["DefaultRouteSettings"] == {"ThrottlingBurstLimit": 9, "ThrottlingRateLimit": 7}
    assert stage["Properties"]["RouteSettings"]["POST /mcp"] == {"ThrottlingRateLimit": 7, "ThrottlingBurstLimit": 9}


@pytest.mark.parametrize(
    ("key", "value"),
    [("reservedConcurrency", "0"), ("apiRateLimit", "-5"), ("apiBurstLimit", "lots"), ("apiRateLimit", True)],
)
def test_a_limit_that_is_not_a_positive_whole_number_is_refused_naming_its_key(
    bare_stack: Callable[..., cdk.Stack], key: str, value: object
) -> None:
    with pytest.raises(ConfigError, match=f"^{key} must be a whole number of at least 1, got ") as refused:
        ServiceOptions.from_context(bare_stack(**{key: value}).node)
    if key == "reservedConcurrency":
        assert "'none' leaves the function on the account's unreserved pool" in str(refused.value)


def test_cors_origins_from_the_context_reach_the_function_and_route_preflights_to_it(
    bare_stack: Callable[..., cdk.Stack],
) -> None:
    template = _api_from_context(bare_stack, corsOrigins="https://host.example.com, http://localhost:6274/")
    (fn,) = template.find_resources("AWS::Lambda::Function").values()
    assert fn["Properties"]["Environment"]["Variables"]["CORS_ORIGINS"] == (
        "https://host.example.com,http://localhost:6274"
    )
    routes = template.find_resources("AWS::ApiGatewayV2::Route").values()
    assert "OPTIONS /mcp" in {r["Properties"]["RouteKey"] for r in routes}
    (stage,) = template.find_resources("AWS::ApiGatewayV2::Stage").values()
    assert stage["Properties"]["RouteSettings"]["OPTIONS /mcp"] == {
        "ThrottlingRateLimit": 50,
        "ThrottlingBurstLimit": 100,
    }
    # The function answers preflights for the listed origins only: API Gateway's own CORS stays off.
    (api,) = template.find_resources("AWS::ApiGatewayV2::Api").values()
    assert "CorsConfiguration" not in api["Properties"]


def test_without_cors_origins_there_is_no_preflight_route_and_no_setting(bare_stack: Callable[..., cdk.Stack]) -> None:
    template = _api_from_context(bare_stack)
    (fn,) = template.find_resources("AWS::Lambda::Function").values()
    assert "CORS_ORIGINS" not in fn["Properties"]["Environment"]["Variables"]
    routes = template.find_resources("AWS::ApiGatewayV2::Route").values()
    assert "OPTIONS /mcp" not in {r["Properties"]["RouteKey"] for r in routes}


@pytest.mark.parametrize(
    "origins",
    ["*", "https://host.example.com/app", "http://host.example.com", "https://*.example.com", "host.example.com"],
)
def test_a_cors_origin_that_is_not_an_https_origin_is_refused(
    bare_stack: Callable[..., cdk.Stack], origins: str
) -> None:
    with pytest.raises(ConfigError, match=r"^corsOrigins must list origins such as https://host\.example\.com"):
        ServiceOptions.from_context(bare_stack(corsOrigins=origins).node)


def test_anonymous_state_reaches_the_function_only_when_the_context_sets_it(
    bare_stack: Callable[..., cdk.Stack],
) -> None:
    def variables(**context: object) -> dict[str, Any]:
        (fn,) = _api_from_context(bare_stack, **context).find_resources("AWS::Lambda::Function").values()
        env: dict[str, Any] = fn["Properties"]["Environment"]["Variables"]
        return env

    assert "ANONYMOUS_STATE" not in variables()  # the function's own default, capability, applies
    assert variables(anonymousState="refuse")["ANONYMOUS_STATE"] == "refuse"
    assert variables(anonymousState="capability")["ANONYMOUS_STATE"] == "capability"


@pytest.mark.parametrize("value", ["Refuse", "deny", "", True])
def test_an_anonymous_state_other_than_capability_or_refuse_is_refused(
    bare_stack: Callable[..., cdk.Stack], value: object
) -> None:
    with pytest.raises(ConfigError, match=r"^anonymousState must be one of capability, refuse, got "):
        ServiceOptions.from_context(bare_stack(anonymousState=value).node)
