"""Apps load on first use: a cold start that builds the server and answers initialize + tools/list loads no app's
domain, service or handlers, nor python-chess; an app's first tool call loads them.

Runs in a fresh interpreter, as a Lambda init does (no SnapStart), with DynamoDB on moto.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from apigw_events import rpc, v2

ROOT = Path(__file__).resolve().parents[2]
HOST = "abc123.execute-api.eu-west-1.amazonaws.com"
HANDSHAKE = {"mcp-protocol-version": "2025-11-25"}
FORM = {"type": "object", "properties": {"city": {"type": "string", "maxLength": 40}}}
# What an app's tools are made of, beyond their declarations; and python-chess.
IMPLEMENTATION = re.compile(r"^(chess|widget_mcp\.apps\.\w+\.(domain|service|repository|handlers|views))(\..*)?$")

# Runs in the fresh interpreter: each step's events through the real handler, then the implementation modules
# loaded so far and whether every answer was a success.
PROBE = f"""
import json, re, sys
steps = json.load(sys.stdin)
import widget_mcp.handler as lambda_handler

class Context:
    aws_request_id = "first-request"

report = []
for name, events in steps:
    answers = [json.loads(lambda_handler.handler(event, Context())["body"]) for event in events]
    loaded = sorted(m for m in sys.modules if re.match({IMPLEMENTATION.pattern!r}, m))
    ok = all("result" in a and not a["result"].get("isError") for a in answers)
    tools = [t["name"] for a in answers for t in a.get("result", {{}}).get("tools", [])]
    report.append({{"step": name, "loaded": loaded, "ok": ok, "tools": tools}})
print(json.dumps(report))
"""


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments, "_meta": {"openai/subject": "first-use"}}
    return v2(rpc("tools/call", params), headers=HANDSHAKE)


def _run(steps: list[tuple[str, list[dict[str, Any]]]]) -> dict[str, dict[str, Any]]:
    env = {k: v for k, v in os.environ.items() if k != "AWS_LAMBDA_INITIALIZATION_TYPE"}
    env |= {"PYTHONPATH": str(ROOT / "lambda_src"), "ALLOWED_HOSTS": HOST}
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        input=json.dumps(steps),
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    return {r["step"]: r for r in json.loads(out.strip().splitlines()[-1])}


def test_listing_tools_loads_no_app_domain_and_each_apps_first_call_loads_its_own(dynamodb_endpoint: str) -> None:
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "host", "version": "1"}}
    report = _run(
        [
            ("list", [v2(rpc("initialize", init)), v2(rpc("tools/list"), headers=HANDSHAKE)]),
            ("demo", [_call("display_demo", {"message": "hi"})]),
            ("chess", [_call("chess_new_game", {"opponent": "engine"})]),
            ("forms", [_call("ask_question", {"question": FORM})]),
        ]
    )

    assert report["list"]["ok"]
    assert {"chess_new_game", "ask_question", "display_demo"} <= set(report["list"]["tools"])
    assert report["list"]["loaded"] == []
    assert report["demo"]["ok"]
    assert report["demo"]["loaded"] == []
    chess = set(report["chess"]["loaded"])
    assert report["chess"]["ok"]
    assert {"chess", "widget_mcp.apps.chess.domain", "widget_mcp.apps.chess.service"} <= chess
    assert not any(m.startswith("widget_mcp.apps.forms.") for m in chess)
    assert report["forms"]["ok"]
    assert {"widget_mcp.apps.forms.domain", "widget_mcp.apps.forms.service"} <= set(report["forms"]["loaded"])
