"""The API Gateway HTTP API (v2) sample event from tests/events, and a Lambda context, for the benchmarks."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

_SAMPLE = json.loads((Path(__file__).resolve().parent.parent / "tests" / "events" / "apigw-http-v2.json").read_text())
HOST: str = _SAMPLE["headers"]["host"]


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


def http_v2_event(body: dict[str, Any]) -> dict[str, Any]:
    event = copy.deepcopy(_SAMPLE)
    event["body"] = json.dumps(body)
    return event


def tool_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
