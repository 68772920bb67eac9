"""API Gateway HTTP API (v2) events and a Lambda context, shared by the benchmarks."""

from __future__ import annotations

import json
from typing import Any

HOST = "bench.execute-api.eu-west-1.amazonaws.com"


class LambdaContext:
    aws_request_id = "bench-request"
    function_name = "bench"
    function_version = "$LATEST"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:eu-west-1:123456789012:function:bench"
    log_group_name = "/aws/lambda/bench"
    log_stream_name = "bench"

    @staticmethod
    def get_remaining_time_in_millis() -> int:
        return 30_000


def http_v2_event(body: dict[str, Any], *, headers: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "version": "2.0",
        "routeKey": "POST /mcp",
        "rawPath": "/mcp",
        "rawQueryString": "",
        "headers": {
            "host": HOST,
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            **(headers or {}),
        },
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "bench",
            "domainName": HOST,
            "domainPrefix": "bench",
            "http": {
                "method": "POST",
                "path": "/mcp",
                "protocol": "HTTP/1.1",
                "sourceIp": "192.0.2.1",
                "userAgent": "bench",
            },
            "requestId": "bench-request",
            "routeKey": "POST /mcp",
            "stage": "$default",
            "time": "21/Nov/2026:10:00:00 +0000",
            "timeEpoch": 1795000000000,
        },
        "body": json.dumps(body),
        "isBase64Encoded": False,
    }


def tool_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
