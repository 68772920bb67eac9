"""The function's keys (the host-token secret Open WebUI shares, the requestState key) and the limits a deployer sets
with `-c`: generated or adopted secrets, their ARNs in the environment, read by the function alone, and limits
checked at synth against the bounds the function itself enforces."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk.assertions import Template
from readme_snippets import blocks
from synth_support import Synthesized
from widget_mcp.cdk.config import ConfigError, ServiceOptions
from widget_mcp.cdk.function_context import LIMIT_SETTINGS
from widget_mcp.cdk.mcp_api import McpApi
from widget_mcp.cdk.shared_secrets import GENERATED_LENGTH, SharedSecrets
from widget_mcp.settings import Settings

from infra.app import STACK_NAME

SECRET_ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:widget-mcp/host-token-AbC123"
PARAMETER_ARN = "arn:aws:ssm:eu-west-1:123456789012:parameter/widget-mcp/request-state"
KEY_VARIABLES = ("HOST_TOKEN_SECRET_ARN", "REQUEST_STATE_SECRET_ARN")


def _function(resources: dict[str, Any]) -> dict[str, Any]:
    (fn,) = [
        r
        for r in resources.values()
        if r["Type"] == "AWS::Lambda::Function" and r["Properties"].get("Handler") == "widget_mcp.handler.handler"
    ]
    return fn


def _statements_of_roles(resources: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Every IAM policy statement in the template, by the role it is attached to."""
    found: dict[str, list[dict[str, Any]]] = {}
    for policy in (r for r in resources.values() if r["Type"] == "AWS::IAM::Policy"):
        for role in policy["Properties"]["Roles"]:
            found.setdefault(role["Ref"], []).extend(policy["Properties"]["PolicyDocument"]["Statement"])
    return found


def _secret_ids(resources: dict[str, Any]) -> dict[str, str]:
    """The generated secrets' logical ids, by the variable their description names."""
    return {
        next(v.removesuffix("_ARN") for v in KEY_VARIABLES if v.removesuffix("_ARN") in r["Properties"]["Description"])
        + "_ARN": logical_id
        for logical_id, r in resources.items()
        if r["Type"] == "AWS::SecretsManager::Secret"
    }


def test_the_stack_generates_both_keys_and_names_them_in_the_functions_environment(synthesized: Synthesized) -> None:
    resources = synthesized.template.to_json()["Resources"]
    secrets = _secret_ids(resources)
    assert set(secrets) == set(KEY_VARIABLES)
    for logical_id in secrets.values():
        generated = resources[logical_id]["Properties"]["GenerateSecretString"]
        assert generated["PasswordLength"] == GENERATED_LENGTH >= 32
        assert generated["ExcludePunctuation"] is True
        assert "SecretString" not in resources[logical_id]["Properties"]  # no value in the template
    env = _function(resources)["Properties"]["Environment"]["Variables"]
    assert {variable: env[variable] for variable in KEY_VARIABLES} == {v: {"Ref": i} for v, i in secrets.items()}


def test_only_the_functions_role_may_read_the_keys_and_only_their_values(synthesized: Synthesized) -> None:
    resources = synthesized.template.to_json()["Resources"]
    refs = [{"Ref": logical_id} for logical_id in _secret_ids(resources).values()]
    role = _function(resources)["Properties"]["Role"]["Fn::GetAtt"][0]
    readers = {
        holder: [s for s in statements if s["Resource"] in refs or any(r in refs for r in s["Resource"])]
        for holder, statements in _statements_of_roles(resources).items()
    }
    readers = {holder: statements for holder, statements in readers.items() if statements}
    assert list(readers) == [role]
    assert sorted((s["Action"], json.dumps(s["Resource"])) for s in readers[role]) == sorted(
        ("secretsmanager:GetSecretValue", json.dumps(ref)) for ref in refs
    )
    assert not [r for r in resources.values() if r["Type"] == "AWS::SecretsManager::ResourcePolicy"]


def test_the_stack_outputs_where_the_host_token_secret_is_and_never_its_value(synthesized: Synthesized) -> None:
    template = synthesized.template.to_json()
    host_secret = _secret_ids(template["Resources"])["HOST_TOKEN_SECRET_ARN"]
    assert template["Outputs"]["HostTokenSecretArn"]["Value"] == {"Ref": host_secret}
    assert "resolve:secretsmanager" not in json.dumps(template)  # no dynamic reference hands the value to anything


def test_the_infra_readmes_command_reads_the_secret_the_stack_outputs_under_the_stacks_default_name(
    synthesized: Synthesized,
) -> None:
    (command,) = [b.code for b in blocks(path="infra/README.md") if "get-secret-value" in b.code]
    (output,) = [k for k in synthesized.template.to_json()["Outputs"] if f"OutputKey=='{k}'" in command]
    assert output == "HostTokenSecretArn"
    assert f"--stack-name {STACK_NAME} " in command
    assert "--query SecretString --output text" in command


def test_with_host_tokens_on_the_sandboxed_widgets_preflight_reaches_the_function_throttled_like_calls(
    synthesized: Synthesized, bare_stack: Callable[..., cdk.Stack]
) -> None:
    resources = synthesized.template.to_json()["Resources"]
    routes = {r["Properties"]["RouteKey"]: r for r in resources.values() if r["Type"] == "AWS::ApiGatewayV2::Route"}
    assert routes["OPTIONS /mcp"]["Properties"]["Target"] == routes["POST /mcp"]["Properties"]["Target"]
    (stage,) = [r for r in resources.values() if r["Type"] == "AWS::ApiGatewayV2::Stage"]
    settings = stage["Properties"]["RouteSettings"]
    assert settings["OPTIONS /mcp"] == settings["POST /mcp"]

    without = _template(bare_stack, hostTokenSecretArn="none")["Resources"]
    keys = {r["Properties"]["RouteKey"] for r in without.values() if r["Type"] == "AWS::ApiGatewayV2::Route"}
    assert "OPTIONS /mcp" not in keys


def test_with_sign_in_on_there_is_no_host_token_secret(with_sign_in: Synthesized) -> None:
    template = with_sign_in.template.to_json()
    assert set(_secret_ids(template["Resources"])) == {"REQUEST_STATE_SECRET_ARN"}
    env = _function(template["Resources"])["Properties"]["Environment"]["Variables"]
    assert "HOST_TOKEN_SECRET_ARN" not in env
    assert "HostTokenSecretArn" not in template["Outputs"]


def _template(make_stack: Callable[..., cdk.Stack], **context: object) -> dict[str, Any]:
    """The keys and the MCP API as the stack wires them, from `context`."""
    stack = make_stack(**context)
    config = ServiceOptions.from_context(stack.node)
    keys = SharedSecrets(stack, "Keys", removal_policy=config.removal_policy, existing=config.existing_secrets)
    McpApi(
        stack,
        "Api",
        table=dynamodb.Table.from_table_name(stack, "T", "state"),
        widget_base_url="https://cdn.example.com/widgets",
        widget_domain=None,
        removal_policy=config.removal_policy,
        log_retention=config.log_retention,
        secrets=keys.refs,
        function_limits=config.function_limits,
    )
    found: dict[str, Any] = Template.from_stack(stack).to_json()
    return found


def test_keys_the_deployer_keeps_are_read_where_they_are_with_the_one_action_each_needs(
    bare_stack: Callable[..., cdk.Stack],
) -> None:
    template = _template(bare_stack, hostTokenSecretArn=SECRET_ARN, requestStateSecretArn=PARAMETER_ARN)
    resources = template["Resources"]
    assert _secret_ids(resources) == {}
    env = _function(resources)["Properties"]["Environment"]["Variables"]
    assert (env["HOST_TOKEN_SECRET_ARN"], env["REQUEST_STATE_SECRET_ARN"]) == (SECRET_ARN, PARAMETER_ARN)
    (statements,) = _statements_of_roles(resources).values()
    granted = {(s["Action"], s["Resource"]) for s in statements if s["Resource"] in (SECRET_ARN, PARAMETER_ARN)}
    assert granted == {("secretsmanager:GetSecretValue", SECRET_ARN), ("ssm:GetParameter", PARAMETER_ARN)}


def test_host_tokens_can_be_left_out_and_the_request_state_key_is_then_still_generated(
    bare_stack: Callable[..., cdk.Stack],
) -> None:
    resources = _template(bare_stack, hostTokenSecretArn="none")["Resources"]
    assert set(_secret_ids(resources)) == {"REQUEST_STATE_SECRET_ARN"}
    assert "HOST_TOKEN_SECRET_ARN" not in _function(resources)["Properties"]["Environment"]["Variables"]


@pytest.mark.parametrize(
    ("context", "message"),
    [
        ({"hostTokenSecretArn": SECRET_ARN.removesuffix("-AbC123")}, "hostTokenSecretArn must be the complete ARN"),
        ({"hostTokenSecretArn": "arn:aws:s3:::bucket/key"}, "hostTokenSecretArn must be the complete ARN"),
        ({"requestStateSecretArn": "none"}, "requestStateSecretArn must be the complete ARN"),
        ({"signIn": "true", "hostTokenSecretArn": SECRET_ARN}, "hostTokenSecretArn has no use with signIn=true"),
    ],
)
def test_a_key_context_that_names_no_usable_secret_fails_synth_in_one_sentence(
    bare_stack: Callable[..., cdk.Stack], context: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError, match=f"^{message}") as refused:
        ServiceOptions.from_context(bare_stack(**context).node)
    assert str(refused.value).count(". ") == 0


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.title() for word in rest)


def _bounds(name: str) -> tuple[int, int]:
    metadata = Settings.model_fields[name].metadata
    return next(m.ge for m in metadata if hasattr(m, "ge")), next(m.le for m in metadata if hasattr(m, "le"))


def test_every_limit_set_by_context_reaches_the_function_as_a_value_its_settings_accept(
    bare_stack: Callable[..., cdk.Stack],
) -> None:
    # The highest each may be, except that one value's budget stays within one answer's.
    chosen = {name: _bounds(name)[1] for name in LIMIT_SETTINGS}
    chosen["forms_max_value_steps"] = chosen["forms_max_check_steps"]
    env = _function(_template(bare_stack, **{_camel(k): str(v) for k, v in chosen.items()})["Resources"])
    variables = env["Properties"]["Environment"]["Variables"]
    assert {name: variables[name.upper()] for name in LIMIT_SETTINGS} == {k: str(v) for k, v in chosen.items()}
    accepted = Settings(**{name: variables[name.upper()] for name in LIMIT_SETTINGS})  # type: ignore[arg-type]
    assert {name: getattr(accepted, name) for name in LIMIT_SETTINGS} == chosen


def test_limits_the_context_does_not_set_are_left_to_the_functions_defaults(
    bare_stack: Callable[..., cdk.Stack],
) -> None:
    variables = _function(_template(bare_stack)["Resources"])["Properties"]["Environment"]["Variables"]
    assert not {name.upper() for name in LIMIT_SETTINGS} & set(variables)


@pytest.mark.parametrize("name", LIMIT_SETTINGS)
def test_a_limit_outside_the_functions_bounds_fails_synth_naming_its_key_and_range(
    bare_stack: Callable[..., cdk.Stack], name: str
) -> None:
    low, high = _bounds(name)
    for value in (str(high + 1), "lots", str(low - 1) if low > 0 else "-1"):
        with pytest.raises(ConfigError) as refused:
            ServiceOptions.from_context(bare_stack(**{_camel(name): value}).node)
        assert str(refused.value) == f"{_camel(name)} must be a whole number from {low} to {high}, got {value!r}"


def test_a_values_budget_above_the_answers_fails_synth(bare_stack: Callable[..., cdk.Stack]) -> None:
    context = {"formsMaxCheckSteps": "5000", "formsMaxValueSteps": "6000"}
    with pytest.raises(ConfigError, match=r"^formsMaxValueSteps must not exceed formsMaxCheckSteps \(5000\)"):
        ServiceOptions.from_context(bare_stack(**context).node)
