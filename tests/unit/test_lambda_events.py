import base64

import pytest
from widget_mcp.transport.lambda_events import EventError, parse_event, to_response
from widget_mcp.transport.replies import HttpReply


def test_an_http_api_event_becomes_a_request_with_lower_case_headers() -> None:
    request = parse_event(
        {
            "version": "2.0",
            "rawPath": "/mcp",
            "headers": {"Content-Type": "application/json"},
            "body": "{}",
            "requestContext": {"http": {"method": "post"}, "requestId": "r-1", "stage": "$default"},
        }
    )
    assert (request.method, request.path, request.body, request.request_id, request.version) == (
        "POST",
        "/mcp",
        b"{}",
        "r-1",
        "2.0",
    )
    assert request.headers == {"content-type": "application/json"}


def test_a_rest_event_has_its_named_stage_and_base64_body_unwrapped() -> None:
    request = parse_event(
        {
            "httpMethod": "POST",
            "path": "/prod/mcp",
            "isBase64Encoded": True,
            "body": base64.b64encode(b'{"a":1}').decode(),
            "multiValueHeaders": {"Accept": ["application/json", "text/event-stream"]},
            "requestContext": {"stage": "prod", "requestId": "r-2"},
        }
    )
    assert (request.path, request.body, request.version) == ("/mcp", b'{"a":1}', "1.0")
    assert request.headers == {"accept": "application/json,text/event-stream"}


def test_a_body_marked_base64_that_is_not_is_refused() -> None:
    with pytest.raises(EventError, match="not valid base64"):
        parse_event({"httpMethod": "POST", "path": "/mcp", "isBase64Encoded": True, "body": "%%%"})


def test_events_that_are_not_from_api_gateway_are_refused() -> None:
    with pytest.raises(EventError, match="not an API Gateway proxy event"):
        parse_event({"Records": []})


def test_replies_mirror_the_event_format() -> None:
    reply = HttpReply(405, b"{}", (("content-type", "application/json"), ("allow", "POST")))
    assert to_response(reply, "2.0") == {
        "statusCode": 405,
        "headers": {"content-type": "application/json", "allow": "POST"},
        "body": "{}",
        "isBase64Encoded": False,
    }
    assert to_response(reply, "1.0")["multiValueHeaders"] == {"content-type": ["application/json"], "allow": ["POST"]}


@pytest.mark.parametrize(
    "change",
    [
        {"requestContext": True},
        {"requestContext": {"http": "POST"}},
        {"headers": ["content-type"]},
        {"multiValueHeaders": {"accept": 1}},
        {"body": {"jsonrpc": "2.0"}},
        {"rawPath": None},
    ],
)
def test_an_event_whose_parts_have_the_wrong_types_is_refused_not_raised(change: dict[str, object]) -> None:
    event = {
        "version": "2.0",
        "rawPath": "/mcp",
        "headers": {},
        "body": "{}",
        "requestContext": {"http": {"method": "POST"}, "requestId": "r-1"},
    }
    with pytest.raises(EventError):
        parse_event(event | change)


def test_a_lone_surrogate_in_an_event_body_becomes_bytes_the_json_decoder_refuses() -> None:
    event = {"version": "2.0", "rawPath": "/mcp", "body": '"\ud800"', "requestContext": {"http": {"method": "POST"}}}
    assert parse_event(event).body == b'"\xed\xa0\x80"'


def test_an_event_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(EventError):
        parse_event(["version", "2.0"])


def test_the_source_ip_is_read_from_the_request_context_of_either_event_format() -> None:
    v2 = {
        "version": "2.0",
        "rawPath": "/mcp",
        "requestContext": {"http": {"method": "POST", "sourceIp": "203.0.113.9"}},
    }
    v1 = {"httpMethod": "POST", "path": "/mcp", "requestContext": {"identity": {"sourceIp": "198.51.100.7"}}}
    forged = {**v2, "headers": {"X-Forwarded-For": "192.0.2.1"}, "requestContext": {"http": {"method": "POST"}}}

    assert parse_event(v2).source_ip == "203.0.113.9"
    assert parse_event(v1).source_ip == "198.51.100.7"
    assert parse_event(forged).source_ip is None
