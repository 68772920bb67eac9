"""Run by test_lambda_asset_build.py under `python -I -S -B`: the asset alone (plus a stand-in for the runtime's
boto3) must import the handler and answer MCP events. Prints a JSON report. Standard library only.

It also lists the asset's source files whose code the import system asked for, and those it compiled from
source: the loader compiles only when no usable `.pyc` exists (missing, or another Python's magic number)."""

from __future__ import annotations

import copy
import importlib._bootstrap_external as bootstrap_external
import json
import sys
from pathlib import Path
from typing import Any

asset, runtime, sample = (Path(p).resolve() for p in sys.argv[1:4])
sys.path[:0] = [str(asset), str(runtime)]
requested: list[str] = []
compiled: list[str] = []
_get_code, _source_to_code = bootstrap_external.SourceLoader.get_code, bootstrap_external.SourceLoader.source_to_code


def get_code(self: Any, fullname: str) -> Any:
    requested.append(self.get_filename(fullname))
    return _get_code(self, fullname)


def source_to_code(self: Any, data: Any, path: Any, *args: Any, **kwargs: Any) -> Any:
    compiled.append(str(path))
    return _source_to_code(self, data, path, *args, **kwargs)


bootstrap_external.SourceLoader.get_code = get_code  # type: ignore[method-assign]
bootstrap_external.SourceLoader.source_to_code = source_to_code  # type: ignore[method-assign]

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


def in_asset(files: list[str]) -> list[str]:
    paths = (Path(f).resolve() for f in files)
    return sorted({p.relative_to(asset).as_posix() for p in paths if p.is_relative_to(asset)})


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
            "asset_code_requested": in_asset(requested),
            "asset_compiled_from_source": in_asset(compiled),
        }
    )
)
