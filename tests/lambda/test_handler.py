"""API Gateway events through `widget_mcp.handler.handler`, exactly as Lambda delivers them."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from apigw_events import Context, Handler, rpc, v1, v2
from served_tools import SERVED_TOOLS

INIT = rpc(
    "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}
)
CALL = rpc("tools/call", {"name": "display_demo", "arguments": {"message": "warm"}})
MODERN = {
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "display_demo",
}
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def body(response: dict[str, Any]) -> Any:
    return json.loads(response["body"])


def test_the_handshake_and_a_tool_call_are_answered_with_json(handler: Handler) -> None:
    init = handler(v2(INIT), Context())
    assert init["statusCode"] == 200
    assert init["headers"]["content-type"] == "application/json"
    assert body(init)["result"]["protocolVersion"] == "2025-11-25"
    # A 2025-11-25 client gets a session with resumable streams on (the default), signed, that it sends back.
    assert init["headers"]["mcp-session-id"].startswith("s1.")
    call = body(handler(v2(CALL), Context()))
    assert call["result"]["structuredContent"] == {"message": "warm", "length": 4, "words": 1}
    assert [w["widget"] for w in call["result"]["_meta"]["widgets"]] == ["text", "table"]


def test_a_thousand_warm_invocations_on_one_container_all_succeed(handler: Handler) -> None:
    statuses = set()
    for i in range(1000):
        response = handler(
            v2(rpc("tools/call", {"name": "display_demo", "arguments": {"message": f"m{i}"}}, id=i)), Context()
        )
        statuses.add(response["statusCode"])
        assert body(response)["id"] == i
    assert statuses == {200}


def test_the_stateless_2026_protocol_needs_no_initialize(handler: Handler) -> None:
    message = rpc("tools/call", {"name": "display_demo", "arguments": {"message": "hi"}, "_meta": ENVELOPE})
    response = handler(v2(message, headers=MODERN), Context())
    assert response["statusCode"] == 200
    assert body(response)["result"]["resultType"] == "complete"
    assert body(response)["result"]["structuredContent"]["message"] == "hi"


def test_2026_requests_whose_headers_disagree_with_the_body_are_refused(handler: Handler) -> None:
    message = rpc("tools/call", {"name": "display_demo", "arguments": {"message": "hi"}, "_meta": ENVELOPE})
    response = handler(v2(message, headers={**MODERN, "mcp-name": "another_tool"}), Context())
    assert response["statusCode"] == 400
    assert body(response)["error"]["code"] == -32020


def test_rest_api_events_with_a_base64_body_are_served_too(handler: Handler) -> None:
    response = handler(v1(CALL, base64_body=True), Context())
    assert response["statusCode"] == 200
    assert response["multiValueHeaders"]["content-type"] == ["application/json"]
    assert body(response)["result"]["structuredContent"]["message"] == "warm"


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_get_and_delete_on_mcp_are_405_without_waiting(handler: Handler, method: str) -> None:
    response = handler(v2(method=method), Context())
    assert response["statusCode"] == 405
    assert response["headers"]["allow"] == "POST"


def test_a_body_over_the_limit_is_413(handler: Handler) -> None:
    huge = rpc("tools/call", {"name": "display_demo", "arguments": {"message": "x" * (1024 * 1024)}})
    response = handler(v2(huge), Context())
    assert response["statusCode"] == 413
    assert body(response)["error"]["message"] == "Request body exceeds 1048576 bytes"


@pytest.mark.parametrize(
    ("raw", "status", "code"),
    [
        ('{"jsonrpc": "2.0", "id": 1, "method": ', 400, -32700),
        ("[]", 400, -32600),
        ('{"jsonrpc": "1.0", "id": 1, "method": "ping"}', 400, -32600),
        ('{"jsonrpc": "2.0", "id": true, "method": "ping"}', 400, -32600),
        ('{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}', 400, -32602),
        ('"just a string"', 400, -32600),
        ('{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"a": ' + "[" * 100 + "]" * 100 + "}}", 400, -32600),
        ("[" * 100_000 + "]" * 100_000, 400, -32700),
    ],
)
def test_malformed_json_rpc_gets_a_json_rpc_error_not_a_5xx(handler: Handler, raw: str, status: int, code: int) -> None:
    response = handler(v2(raw), Context())
    assert response["statusCode"] == status
    assert body(response)["error"]["code"] == code
    assert "Traceback" not in response["body"]
    assert "/site-packages/" not in response["body"]


def test_an_unknown_method_is_method_not_found(handler: Handler) -> None:
    assert body(handler(v2(rpc("tools/destroy")), Context()))["error"] == {
        "code": -32601,
        "message": "Method not found",
        "data": "tools/destroy",
    }


def test_bad_params_for_a_known_method_are_invalid_params(handler: Handler) -> None:
    assert body(handler(v2(rpc("tools/call", {"arguments": {}})), Context()))["error"]["code"] == -32602
    unknown = body(handler(v2(rpc("tools/call", {"name": "no_such_tool"})), Context()))
    assert unknown["error"] == {"code": -32602, "message": "Unknown tool: no_such_tool"}


def test_a_notification_is_accepted_with_an_empty_202(handler: Handler) -> None:
    response = handler(v2({"jsonrpc": "2.0", "method": "notifications/initialized"}), Context())
    assert (response["statusCode"], response["body"]) == (202, "")


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"host": "attacker.example.com"}, 421),
        ({"origin": "https://attacker.example.com"}, 403),
        ({"content-type": "text/plain"}, 415),
        ({"accept": "text/event-stream"}, 406),
    ],
)
def test_transport_level_refusals_carry_json_bodies(handler: Handler, headers: dict[str, str], status: int) -> None:
    response = handler(v2(CALL, headers=headers), Context())
    assert response["statusCode"] == status
    assert body(response)["error"]["code"] == -32600


def test_health_is_served_by_the_fastapi_app_under_mangum(handler: Handler) -> None:
    response = handler(v2(method="GET", path="/healthz"), Context())
    assert response["statusCode"] == 200
    assert body(response) == {"status": "ok", "version": "0.1.0", "tools": len(SERVED_TOOLS)}


def test_unknown_routes_are_a_json_404(handler: Handler) -> None:
    response = handler(v2(method="GET", path="/admin"), Context())
    assert response["statusCode"] == 404
    assert body(response) == {"detail": "Not Found"}


def test_an_event_that_is_not_from_api_gateway_is_answered_not_raised(handler: Handler) -> None:
    assert handler({"Records": [{"eventSource": "aws:sqs"}]}, Context())["statusCode"] == 400


@pytest.mark.parametrize("change", [{"cookies": [1, 2]}, {"rawQueryString": 5}, {"headers": ["host"]}])
def test_a_malformed_event_for_any_route_is_a_json_400_not_an_invocation_error(
    handler: Handler, change: dict[str, Any]
) -> None:
    event = v2(method="GET", path="/healthz") | change
    response = handler(event, Context())
    assert (response["statusCode"], body(response)) == (400, {"error": "bad_request"})


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(json.loads(self.format(record)))  # formatted now, while per-call keys are set


def test_a_successful_tool_call_writes_one_line_its_emf_document_with_request_id_and_tool(
    handler: Handler, capsys: pytest.CaptureFixture[str]
) -> None:
    from widget_mcp.handler import core

    logger = core.observability.logger
    capture = _Lines()
    capture.setFormatter(logger.registered_formatter)
    logger.addHandler(capture)
    capsys.readouterr()
    try:
        handler(
            v2(
                rpc(
                    "tools/call",
                    {
                        "name": "display_demo",
                        "arguments": {"message": "log me"},
                        "_meta": {"openai/subject": "v1/alice", "openai/userLocation": {"city": "Oslo"}},
                    },
                )
            ),
            Context(),
        )
    finally:
        logger.removeHandler(capture)
    printed = capsys.readouterr().out
    assert capture.lines == []  # no log line besides the document
    [emf] = [json.loads(line) for line in printed.splitlines() if line.startswith('{"_aws"')]
    assert (emf["level"], emf["message"]) == ("INFO", "tool call finished")
    assert emf["correlation_id"] == "JKJaXmPLvHcESHA="
    assert emf["function_request_id"] == Context().aws_request_id
    assert emf["function_name"] == "widget-mcp"
    assert isinstance(emf["cold_start"], bool)
    assert emf["tool"] == "display_demo"
    assert emf["principal_source"] == "openai"
    assert emf["duration_ms"] == emf["ToolLatency"][0]
    assert emf["_aws"]["CloudWatchMetrics"][0]["Dimensions"] == [["tool", "service"]]  # the log fields are not
    assert "Oslo" not in printed
    assert "alice" not in printed


def test_each_tool_call_emits_emf_metrics_with_the_tool_as_dimension(
    handler: Handler, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    handler(v2(rpc("tools/call", {"name": "display_demo", "arguments": {"message": ""}})), Context())
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    [emf] = [line for line in lines if "_aws" in line]
    directive = emf["_aws"]["CloudWatchMetrics"][0]
    assert directive["Namespace"] == "WidgetMcpTest"
    # Capacity: the caller's rate limit, counted (one write) before even a call that keeps no state does any work.
    metrics = {m["Name"] for m in directive["Metrics"]}
    assert metrics == {"ToolInvocations", "ToolErrors", "ToolLatency", "DynamoDbCapacityUnits"}
    assert emf["tool"] == "display_demo"
    assert (emf["ToolInvocations"], emf["ToolErrors"]) == ([1.0], [1.0])


def test_a_listed_browser_origins_preflight_event_is_answered_by_the_function(handler: Handler) -> None:
    # The stack routes OPTIONS /mcp to the function when it is given CORS origins (conftest: CORS_ORIGINS).
    preflight = {"origin": "https://host.example.com", "access-control-request-method": "POST"}
    response = handler(v2(method="OPTIONS", headers=preflight), Context())
    assert (response["statusCode"], response["body"]) == (204, "")
    assert response["headers"]["access-control-allow-origin"] == "https://host.example.com"
    assert response["headers"]["access-control-allow-methods"] == "GET, POST, OPTIONS"  # GET: resumable streams
    assert "mcp-protocol-version" in response["headers"]["access-control-allow-headers"]
    refused = handler(v2(method="OPTIONS", headers={**preflight, "origin": "https://evil.example.com"}), Context())
    assert refused["statusCode"] == 403
    assert "access-control-allow-origin" not in refused["headers"]


def test_a_call_from_a_listed_browser_origin_is_answered_with_the_cors_headers(handler: Handler) -> None:
    response = handler(v2(CALL, headers={"origin": "https://host.example.com"}), Context())
    assert response["statusCode"] == 200
    assert response["headers"]["access-control-allow-origin"] == "https://host.example.com"
    assert response["headers"]["vary"] == "Origin"
    assert "www-authenticate" in response["headers"]["access-control-expose-headers"]
