"""API Gateway sample events (tests/events/*.json) with a chosen method, path, headers and body."""

from __future__ import annotations

import base64
import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

SAMPLES = Path(__file__).resolve().parent.parent / "events"
_V2 = json.loads((SAMPLES / "apigw-http-v2.json").read_text())
_V1 = json.loads((SAMPLES / "apigw-rest-v1.json").read_text())


Handler = Callable[[dict[str, Any], Any], dict[str, Any]]


class Context:
    aws_request_id = "b0e4b6f2-0000-4000-8000-000000000001"
    function_name = "widget-mcp"
    function_version = "$LATEST"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:eu-west-1:123456789012:function:widget-mcp"
    log_group_name = "/aws/lambda/widget-mcp"
    log_stream_name = "2026/11/21/[$LATEST]0"

    @staticmethod
    def get_remaining_time_in_millis() -> int:
        return 29_000


def _body(body: Any) -> str:
    return body if isinstance(body, str) else json.dumps(body)


def v2(
    body: Any = "", *, method: str = "POST", path: str = "/mcp", headers: dict[str, str] | None = None
) -> dict[str, Any]:
    event = copy.deepcopy(_V2)
    event["rawPath"] = event["requestContext"]["http"]["path"] = path
    event["requestContext"]["http"]["method"] = method
    event["routeKey"] = event["requestContext"]["routeKey"] = f"{method} {path}"
    event["headers"].update(headers or {})
    event["body"] = _body(body)
    return event


def v1(
    body: Any = "",
    *,
    method: str = "POST",
    path: str = "/mcp",
    base64_body: bool = False,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    event = copy.deepcopy(_V1)
    event["httpMethod"] = event["requestContext"]["httpMethod"] = method
    event["path"] = path
    for name, value in (headers or {}).items():
        event["headers"][name] = value
        event["multiValueHeaders"][name] = [value]
    text = _body(body)
    event["body"] = base64.b64encode(text.encode()).decode() if base64_body else text
    event["isBase64Encoded"] = base64_body
    return event


def rpc(method: str, params: dict[str, Any] | None = None, *, id: int | str = 1) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = params
    return message
