"""Malformed Lambda events (fields missing or of the wrong type) are answered with a JSON 4xx, never raised."""

from __future__ import annotations

import json
from typing import Any

from fuzz_strategies import json_values, unicode_text
from fuzz_support import TALLY, assert_no_leak
from fuzz_targets import LambdaTarget
from hypothesis import given
from hypothesis import strategies as st

PING = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
_FIELDS = {
    "v2": ["version", "rawPath", "headers", "body", "isBase64Encoded", "requestContext", "cookies", "rawQueryString"],
    "v1": [
        "httpMethod",
        "path",
        "headers",
        "multiValueHeaders",
        "body",
        "isBase64Encoded",
        "requestContext",
        "queryStringParameters",
        "multiValueQueryStringParameters",
    ],
}


@given(data=st.data())
def test_a_malformed_api_gateway_event_is_answered_not_raised(lambda_target: LambdaTarget, data: st.DataObject) -> None:
    rest = data.draw(st.booleans(), label="rest")
    headers = {"host": lambda_target.host, "content-type": "application/json", "accept": "application/json"}
    method, path = data.draw(st.sampled_from([("POST", "/mcp"), ("GET", "/healthz"), ("GET", "/nowhere")]))
    event: dict[str, Any] = lambda_target.event(method, path, headers, PING, rest=rest)
    for field in data.draw(st.lists(st.sampled_from(_FIELDS["v1" if rest else "v2"]), min_size=1, unique=True)):
        if data.draw(st.integers(0, 4)) == 0:
            event.pop(field, None)
        else:
            event[field] = data.draw(json_values | st.dictionaries(unicode_text, json_values, max_size=3))
    reply = lambda_target.raw(event)
    TALLY.count()
    assert isinstance(reply, dict), reply
    assert isinstance(reply["statusCode"], int), reply
    assert reply["statusCode"] < 500, reply
    if reply.get("body"):
        assert_no_leak(reply["body"], json.dumps(event, ensure_ascii=False).encode("utf-8", "surrogatepass"), {})
        json.loads(reply["body"])
