"""The handler's cold start skips the SDK parts a stateless Lambda never uses, without breaking them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
import widget_mcp.handler
skipped = [m for m in ("mcp.client.client", "mcp.server.mcpserver", "mcp.server.stdio") if m not in sys.modules]
from mcp import Client, types
from mcp.server import MCPServer
print(json.dumps({"skipped": skipped, "late": [Client.__name__, MCPServer.__name__, types.Tool.__name__]}))
"""


def test_the_handler_import_leaves_out_client_and_mcpserver_yet_they_still_import_later() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "lambda_src"), "ALLOWED_HOSTS": "api.example.com"}
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True, timeout=60
    ).stdout
    report = json.loads(out.strip().splitlines()[-1])
    assert report == {
        "skipped": ["mcp.client.client", "mcp.server.mcpserver", "mcp.server.stdio"],
        "late": ["Client", "MCPServer", "Tool"],
    }


def _lazy_libraries_loaded_at_init(
    extra_env: dict[str, str], modules: tuple[str, ...] = ("boto3", "jsonschema")
) -> list[bool]:
    probe = f"import sys, json, widget_mcp.handler; print(json.dumps([m in sys.modules for m in {modules!r}]))"
    env = {k: v for k, v in os.environ.items() if k != "AWS_LAMBDA_INITIALIZATION_TYPE"}
    env |= {"PYTHONPATH": str(ROOT / "lambda_src"), "ALLOWED_HOSTS": "api.example.com", **extra_env}
    out = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True, timeout=60
    ).stdout
    loaded: list[bool] = json.loads(out.strip().splitlines()[-1])
    return loaded


def test_boto3_and_jsonschema_load_on_first_use_but_before_the_snapshot_under_snapstart() -> None:
    assert _lazy_libraries_loaded_at_init({}) == [False, False]
    snap_start = {"AWS_LAMBDA_INITIALIZATION_TYPE": "snap-start", "AWS_DEFAULT_REGION": "eu-west-1"}
    assert _lazy_libraries_loaded_at_init(snap_start) == [True, True]


def test_the_jwt_library_loads_only_when_sign_in_is_on() -> None:
    assert _lazy_libraries_loaded_at_init({}, ("jwt",)) == [False]
    oauth = {"AUTH_MODE": "oauth", "OAUTH_ISSUER": "https://issuer.example.com", "OAUTH_AUDIENCE": "client-1"}
    assert _lazy_libraries_loaded_at_init(oauth, ("jwt",)) == [True]
