"""Run by test_lambda_asset_build.py under `python -I -S -B`: the asset alone (plus a stand-in for the runtime's
boto3) must import the handler and answer MCP events. Prints a JSON report. Standard library only."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

asset, runtime, sample = (Path(p).resolve() for p in sys.argv[1:4])
sys.path[:0] = [str(asset), str(runtime)]

import widget_mcp.handler as lambda_module  # noqa: E402


class Context:
    aws_request_id = "asset-probe"
    function_name = "widget-mcp"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:eu-west-1:123456789012:function:widget-mcp"


def event(method: str, path: str, body: object = "") -> dict[str, object]:
    e = copy.deepcopy(json.loads(sample.read_text()))
    e["rawPath"] = e["requestContext"]["http"]["path"] = path
    e["requestContext"]["http"]["method"] = method
    e["routeKey"] = e["requestContext"]["routeKey"] = f"{method} {path}"
    e["body"] = body if isinstance(body, str) else json.dumps(body)
    return e


def rpc(id_: int, method: str, params: dict[str, object]) -> dict[str, object]:
    reply = lambda_module.handler(
        event("POST", "/mcp", {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}), Context()
    )
    return {"status": reply["statusCode"], "body": json.loads(reply["body"])}


init = rpc(
    1,
    "initialize",
    {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}},
)
tools = rpc(2, "tools/list", {})
health = lambda_module.handler(event("GET", "/healthz"), Context())
stdlib = Path(sys.base_prefix).resolve()
foreign = sorted(
    {
        str(Path(m.__file__).resolve())
        for m in list(sys.modules.values())
        if getattr(m, "__file__", None) != __file__
        and getattr(m, "__file__", None)
        and not any(Path(m.__file__).resolve().is_relative_to(root) for root in (asset, runtime, stdlib))
    }
)
print(
    json.dumps(
        {
            "python": sys.version.split()[0],
            "executable": sys.executable,
            "initialize": init,
            "tools": tools,
            "health": {"status": health["statusCode"], "body": json.loads(health["body"])},
            "foreign_modules": foreign,
            "boto3_imported": "boto3" in sys.modules,
            "token_checks_loaded": {"jwt.algorithms", "cryptography.hazmat.bindings._rust"} <= set(sys.modules),
        }
    )
)
