"""`make asset-smoke`'s own logic, without emulation: how it reads the function out of a cloud assembly (its
environment resolved as in test_resolved_names.py), the environment it gives the handler, and how it judges a
run. (The run itself is `make asset-smoke`, in CI.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from infra.asset_smoke import Function, SmokeFailed, deployed_function, judge, lambda_environment

RESOURCES: dict[str, Any] = {
    "StateTable962DE04C": {"Type": "AWS::DynamoDB::Table"},
    "McpApiApi2E3F7C4A": {"Type": "AWS::ApiGatewayV2::Api"},
    "WidgetCdnDistribution1A2B3C4D": {"Type": "AWS::CloudFront::Distribution"},
}


def test_the_function_comes_with_its_bundled_asset_and_resolved_environment(tmp_path: Path) -> None:
    function = {
        "Type": "AWS::Lambda::Function",
        "Properties": {
            "Handler": "widget_mcp.handler.handler",
            "Code": {
                "S3Bucket": {"Fn::Sub": "cdk-hnb659fds-assets-${AWS::AccountId}-${AWS::Region}"},
                "S3Key": "f00d.zip",
            },
            "Environment": {
                "Variables": {
                    "TABLE_NAME": {"Ref": "StateTable962DE04C"},
                    "ALLOWED_HOSTS": {
                        "Fn::Join": ["", [{"Ref": "McpApiApi2E3F7C4A"}, ".execute-api.", {"Ref": "AWS::Region"}]]
                    },
                    "LOG_LEVEL": "INFO",
                }
            },
            "SnapStart": {"ApplyOn": "PublishedVersions"},
        },
    }
    helper = {
        "Type": "AWS::Lambda::Function",
        "Properties": {"Handler": "index.handler", "Code": {"S3Key": "beef.zip"}},
    }
    template = {"Resources": {**RESOURCES, "McpApiFunction": function, "Helper": helper}}
    (tmp_path / "Stack.template.json").write_text(json.dumps(template))
    destination = {"objectKey": "f00d.zip", "bucketName": "b"}
    files = {
        "f00d": {"source": {"path": "asset.f00d", "packaging": "zip"}, "destinations": {"d": destination}},
        "beef": {
            "source": {"path": "asset.beef", "packaging": "zip"},
            "destinations": {"d": {"objectKey": "beef.zip"}},
        },
    }
    (tmp_path / "Stack.assets.json").write_text(json.dumps({"files": files}))
    found = deployed_function(tmp_path, "Stack")
    environment = {
        "TABLE_NAME": "WidgetMcp-StateTable962DE04C-1A2B3C4D5E6F",
        "ALLOWED_HOSTS": "abc123defg.execute-api.eu-west-1",
        "LOG_LEVEL": "INFO",
    }
    assert found == Function(tmp_path / "asset.f00d", environment, True)


def test_the_handler_gets_the_templates_variables_with_var_task_meaning_the_asset_plus_lambdas_own() -> None:
    function = Function(Path("/tmp/cdk.out/asset.f00d"), {"WIDGET_MANIFEST": "/var/task/widget_manifest.json"}, True)
    env = lambda_environment(function, "http://127.0.0.1:4566")
    assert env["WIDGET_MANIFEST"] == "/tmp/cdk.out/asset.f00d/widget_manifest.json"
    assert env["LAMBDA_TASK_ROOT"] == "/tmp/cdk.out/asset.f00d"
    assert env["AWS_LAMBDA_INITIALIZATION_TYPE"] == "snap-start"  # SnapStart inits run prepare_snapshot
    assert env["AWS_ENDPOINT_URL_DYNAMODB"] == "http://127.0.0.1:4566"
    on_demand = lambda_environment(Function(function.asset, {}, False), "http://127.0.0.1:4566")
    assert on_demand["AWS_LAMBDA_INITIALIZATION_TYPE"] == "on-demand"


def a_report(asset: Path, **overrides: Any) -> dict[str, Any]:
    report = {
        "python": "3.13.5",
        "machine": "aarch64",
        "import_seconds": 30.0,
        "total_seconds": 40.0,
        "steps": [{"name": "initialize", "status": 200, "seconds": 0.1, "ok": True, "detail": ""}],
        "error": None,
        "exit": 0,
        "stderr_tail": "",
        "hook_verified": True,
        "code_loaded": {str(asset): ["widget_mcp/handler.py"]},
        "compiled_from_source": [],
        "token_checks_loaded": False,
    }
    return {**report, **overrides}


def test_a_run_passes_only_if_no_module_of_the_asset_was_compiled_from_source(tmp_path: Path) -> None:
    judge("plain", a_report(tmp_path), tmp_path, sign_in=False)
    recompiled = a_report(tmp_path, compiled_from_source=[f"{tmp_path}/widget_mcp/handler.py"])
    with pytest.raises(SmokeFailed, match="compiled from source instead of loaded from bytecode"):
        judge("plain", recompiled, tmp_path, sign_in=False)
    with pytest.raises(SmokeFailed, match="the bytecode proof is void"):
        judge("plain", a_report(tmp_path, hook_verified=False), tmp_path, sign_in=False)


def test_a_run_fails_on_a_failed_step_another_machine_or_the_wrong_token_libraries(tmp_path: Path) -> None:
    with pytest.raises(SmokeFailed, match="the handler failed: chess_move: HTTP 500"):
        judge("plain", a_report(tmp_path, error="chess_move: HTTP 500"), tmp_path, sign_in=False)
    with pytest.raises(SmokeFailed, match=r"not aarch64 CPython 3\.13"):
        judge("plain", a_report(tmp_path, machine="x86_64"), tmp_path, sign_in=False)
    with pytest.raises(SmokeFailed, match="token verification libraries loaded: False, expected True"):
        judge("sign-in", a_report(tmp_path), tmp_path, sign_in=True)
