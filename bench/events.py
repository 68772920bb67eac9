"""The API Gateway HTTP API (v2) sample event from tests/events, a Lambda context, and the requests the
benchmarks send, for every server alike."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

_SAMPLE = json.loads((Path(__file__).resolve().parent.parent / "tests" / "events" / "apigw-http-v2.json").read_text())
HOST: str = _SAMPLE["headers"]["host"]
SUBJECT = "bench-user"  # sent as openai/subject: ours keeps games per user, the baselines ignore it


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


# What the baselines serve as their one resource: the size and shape of our widget templates' HTML shell.
TEMPLATE_URI = "ui://widget/bench.html"
TEMPLATE_HTML = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bench</title><meta name="viewport" '
    'content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark"></head><body>'
    '<div id="root" data-widget-entry="bench"></div><script type="module" src="https://cdn.example.com/widgets/'
    'assets/bench-0123abcd.js"></script></body></html>'
)


def rpc(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": method}
    if params is not None:
        message["params"] = params
    return message


def tool_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return rpc("tools/call", {"name": name, "arguments": arguments})


def warm_events(server: Any) -> dict[str, dict[str, Any]]:
    """The warm requests timed for a server module (bench/ours.py, …): its trivial tools/call, tools/list and a
    resources/read of its template."""
    return {
        "call": http_v2_event(tool_call(server.TOOL, {"message": "hello"})),
        "list": http_v2_event(rpc("tools/list")),
        "read": http_v2_event(rpc("resources/read", {"uri": server.resource_uri()})),
    }


def initialize() -> dict[str, Any]:
    """A 2025-11-25 handshake as MCP clients open it."""
    client = {"name": "bench", "version": "1.0"}
    return rpc("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": client})


def new_game_event() -> dict[str, Any]:
    body = tool_call("chess_new_game", {})
    body["params"]["_meta"] = {"openai/subject": SUBJECT}
    return http_v2_event(body)


def move_event(game_id: str, move: str) -> dict[str, Any]:
    body = tool_call("chess_move", {"gameId": game_id, "move": move})
    body["params"]["_meta"] = {"openai/subject": SUBJECT}
    return http_v2_event(body)


def succeeded(response: dict[str, Any]) -> bool:
    """A 200 carrying a JSON-RPC result that is not a tool error (awslabs' results have no isError)."""
    if response.get("statusCode") != 200:
        return False
    result = json.loads(response["body"]).get("result")
    return isinstance(result, dict) and not result.get("isError", False)
