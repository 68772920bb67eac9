"""SnapStart priming: after the init that a snapshot captures, the first real request of each kind imports no
new module (each kind's code, the web app, anyio's backend were all loaded before the snapshot) and priming
left no trace in the table, the logs or the metrics.

Each case runs in a fresh interpreter, as Lambda's init does, with DynamoDB on moto.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import boto3
import pytest
from apigw_events import rpc, v2

ROOT = Path(__file__).resolve().parents[2]
HOST = "abc123.execute-api.eu-west-1.amazonaws.com"
MCP_URL = f"https://{HOST}/mcp"
HANDSHAKE = {"mcp-protocol-version": "2025-11-25"}
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
ALICE = {"openai/subject": "priming-alice"}
FORM = {"type": "object", "required": ["city"], "properties": {"city": {"type": "string", "maxLength": 40}}}
SIGN_IN = {
    "AUTH_MODE": "oauth",
    "OAUTH_ISSUER": "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_example",
    "OAUTH_AUDIENCE": f"example-client,{MCP_URL}",
    "OAUTH_RESOURCE": MCP_URL,
    "OAUTH_SCOPE_PREFIX": f"{MCP_URL}/",
    "OAUTH_AUTHORIZATION_SERVER": f"https://{HOST}",
    "OAUTH_AUTHORIZE_URL": "https://example.auth.eu-west-1.amazoncognito.com/oauth2/authorize",
    "OAUTH_TOKEN_URL": "https://example.auth.eu-west-1.amazoncognito.com/oauth2/token",
    "OAUTH_REGISTRATION_CLIENT_ID": "example-client",
    "OAUTH_REDIRECT_URIS": "https://chatgpt.com/connector_platform_oauth_redirect",
}

# Runs in the fresh interpreter: the requests (JSON on stdin) one by one through the real handler, each with the
# modules it newly imported. `TEMPLATE_URI` in an event becomes each template's URI in turn, `GAME_ID`/`FORM_ID`
# the ids the earlier calls answered, `ANSWER_KEY` the answer key the form came with (as its widget sends it).
PROBE = """
import json, sys
requests = json.load(sys.stdin)
import widget_mcp.handler as lambda_handler

class Context:
    aws_request_id = "first-request"
    function_name = "widget-mcp"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:eu-west-1:123456789012:function:widget-mcp"

ids = {}
report = []
for kind, event in requests:
    texts = [json.dumps(event)]
    if "TEMPLATE_URI" in texts[0]:
        texts = [texts[0].replace("TEMPLATE_URI", uri) for uri in lambda_handler.core.runtime.templates]
    for text in texts:
        for name, value in ids.items():
            text = text.replace(name, value)
        event = json.loads(text)
        before = set(sys.modules)
        reply = lambda_handler.handler(event, Context())
        imported = sorted(set(sys.modules) - before)
        result = json.loads(reply["body"]).get("result", {}) if reply.get("body") else {}
        structured = result.get("structuredContent") or {}
        for key, name in (("gameId", "GAME_ID"), ("formId", "FORM_ID")):
            if key in structured:
                ids[name] = structured[key]
        if "dgui_answer_key" in (result.get("_meta") or {}):
            ids["ANSWER_KEY"] = result["_meta"]["dgui_answer_key"]
        report.append({"kind": kind, "status": reply["statusCode"], "error": result.get("isError", False),
                       "imported": imported})
print(json.dumps(report))
"""


def _modern(method: str, params: dict[str, Any], name: str | None = None) -> dict[str, Any]:
    headers = {"mcp-protocol-version": "2026-07-28", "mcp-method": method}
    if name is not None:
        headers["mcp-name"] = name
    return v2(rpc(method, {**params, "_meta": {**params.get("_meta", {}), **ENVELOPE}}), headers=headers)


def _call(name: str, arguments: dict[str, Any], meta: dict[str, Any] | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if meta is not None:
        params["_meta"] = meta
    return v2(rpc("tools/call", params), headers=HANDSHAKE)


def _first_requests(sign_in: bool) -> list[tuple[str, dict[str, Any]]]:
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "host", "version": "1"}}
    requests: list[tuple[str, dict[str, Any]]] = [
        ("initialize", v2(rpc("initialize", init))),
        ("notifications/initialized", v2({"jsonrpc": "2.0", "method": "notifications/initialized"})),
        ("tools/list", v2(rpc("tools/list"), headers=HANDSHAKE)),
        ("resources/list", v2(rpc("resources/list"), headers=HANDSHAKE)),
        ("resources/templates/list", v2(rpc("resources/templates/list"), headers=HANDSHAKE)),
        ("resources/read", v2(rpc("resources/read", {"uri": "TEMPLATE_URI"}), headers=HANDSHAKE)),
        ("ping", v2(rpc("ping"), headers=HANDSHAKE)),
        ("tools/call display_demo", _call("display_demo", {"message": "first"})),
        ("2026 server/discover", _modern("server/discover", {})),
        ("2026 tools/list", _modern("tools/list", {})),
        ("2026 resources/read", _modern("resources/read", {"uri": "TEMPLATE_URI"}, "TEMPLATE_URI")),
        (
            "2026 tools/call",
            _modern("tools/call", {"name": "display_demo", "arguments": {"message": "hi"}}, "display_demo"),
        ),
        ("GET /healthz", v2(method="GET", path="/healthz")),
        ("GET /.well-known/oauth-protected-resource", v2(method="GET", path="/.well-known/oauth-protected-resource")),
        ("GET /mcp", v2(method="GET")),
        (
            "CORS preflight",
            v2(
                method="OPTIONS",
                headers={"origin": "https://host.example.com", "access-control-request-method": "POST"},
            ),
        ),
        ("unknown method", v2(rpc("no/such/method"), headers=HANDSHAKE)),
    ]
    if sign_in:
        requests += [
            ("tools/call without a token", _call("chess_new_game", {})),
            (
                "GET /.well-known/oauth-authorization-server",
                v2(method="GET", path="/.well-known/oauth-authorization-server"),
            ),
        ]
    else:
        requests += [
            ("chess_new_game", _call("chess_new_game", {"opponent": "engine"}, ALICE)),
            ("chess_move", _call("chess_move", {"gameId": "GAME_ID", "move": "e4"}, ALICE)),
            ("chess_list_games", _call("chess_list_games", {}, ALICE)),
            ("ask_question", _call("ask_question", {"question": FORM}, ALICE)),
            (
                "submit_form",
                _call("submit_form", {"formId": "FORM_ID", "data": {"city": "Oslo"}, "answerKey": "ANSWER_KEY"}, ALICE),
            ),
        ]
    return requests


def _run_first_requests(sign_in: bool, requests: list[tuple[str, dict[str, Any]]] | None = None) -> tuple[str, str]:
    """The probe's stdout and stderr after the init (with priming) and `requests` (default: one of each kind)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OAUTH_") and k != "AUTH_MODE"}
    env |= {
        "PYTHONPATH": str(ROOT / "lambda_src"),
        "AWS_LAMBDA_INITIALIZATION_TYPE": "snap-start",
        "ALLOWED_HOSTS": HOST,
        "POWERTOOLS_METRICS_DISABLED": "false",
        **(SIGN_IN if sign_in else {}),
    }
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        input=json.dumps(_first_requests(sign_in) if requests is None else requests),
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return done.stdout, done.stderr


def _report(stdout: str) -> list[dict[str, Any]]:
    report: list[dict[str, Any]] = json.loads(stdout.strip().splitlines()[-1])
    return report


@pytest.mark.parametrize("sign_in", [False, True], ids=["plain", "sign-in"])
def test_after_priming_the_first_request_of_each_kind_imports_no_new_module(
    dynamodb_endpoint: str, sign_in: bool
) -> None:
    report = _report(_run_first_requests(sign_in)[0])
    assert {r["kind"]: r["imported"] for r in report if r["imported"]} == {}
    # Each request was really served, not refused before doing its work.
    expected = {"GET /mcp": 405, "CORS preflight": 204, "notifications/initialized": 202}
    if sign_in:
        expected["tools/call without a token"] = 401
    else:
        expected["GET /.well-known/oauth-protected-resource"] = 404
    assert {r["kind"]: r["status"] for r in report if r["status"] != 200} == expected
    assert [r["kind"] for r in report if r["error"]] == []


@pytest.mark.parametrize("sign_in", [False, True], ids=["plain", "sign-in"])
def test_priming_writes_no_state_and_emits_no_log_line_or_metric(dynamodb_endpoint: str, sign_in: bool) -> None:
    table = os.environ["TABLE_NAME"]
    items_before = boto3.client("dynamodb").scan(TableName=table, Select="COUNT")["Count"]
    stdout, stderr = _run_first_requests(sign_in, requests=[])
    assert stdout.strip() == "[]"  # Powertools writes logs and EMF metrics to stdout: there are none
    assert stderr == ""
    assert boto3.client("dynamodb").scan(TableName=table, Select="COUNT")["Count"] == items_before
