"""Hostile traffic to /mcp, through the Lambda handler and over HTTP: every answer is a JSON-RPC response or a JSON
4xx, never a 5xx, and nothing internal (traces, paths, exception reprs) ever shows."""

from __future__ import annotations

import json

from fuzz_strategies import (
    HANDSHAKE,
    METHODS,
    Exchange,
    nested,
    printable_text,
    raw_bodies,
    tool_calls,
    transport_headers,
    unicode_text,
)
from fuzz_support import TALLY, check_answer, check_other_route
from fuzz_targets import HttpTarget, LambdaTarget
from hypothesis import example, given
from hypothesis import strategies as st

Target = LambdaTarget | HttpTarget
GOOD = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
# Settings the targets run with (the defaults): the limits the fuzzed bodies aim at.
DEPTH_LIMIT = 64
BODY_LIMIT = 1024 * 1024


def _header_text(target: Target) -> st.SearchStrategy[str]:
    # An HTTP client cannot send arbitrary Unicode in a header; an API Gateway event can carry any string.
    return unicode_text if isinstance(target, LambdaTarget) else printable_text


def _post(target: Target, data: st.DataObject, headers: dict[str, str], body: bytes) -> None:
    rest, b64 = data.draw(st.integers(0, 4)) == 0, data.draw(st.integers(0, 4)) == 0
    answer = target.send("POST", "/mcp", headers, body, rest=rest, b64=b64)
    TALLY.count()
    check_answer(answer.status, answer.headers, answer.body, request_body=body, request_headers=headers)


@given(data=st.data())
def test_any_body_with_any_headers_gets_a_json_rpc_answer_or_a_json_4xx(target: Target, data: st.DataObject) -> None:
    body = data.draw(raw_bodies(depth_limit=DEPTH_LIMIT, body_limit=BODY_LIMIT), label="body")
    origin = f"https://{target.host}"
    headers = data.draw(transport_headers(host=target.host, origin=origin, header_text=_header_text(target)))
    _post(target, data, headers, body)


@given(data=st.data())
def test_every_tool_answers_fuzzed_arguments_with_a_result_or_a_clean_error(
    target: Target, data: st.DataObject
) -> None:
    exchange: Exchange = data.draw(tool_calls(target.pools, header_text=_header_text(target)), label="call")
    headers = {"host": target.host, **GOOD, **exchange.mcp_headers}
    _post(target, data, headers, exchange.body)


@given(depth=st.integers(3, 3 * DEPTH_LIMIT), method=st.sampled_from(["ping", "tools/list", "tools/call"]))
@example(depth=DEPTH_LIMIT, method="ping")
@example(depth=DEPTH_LIMIT + 1, method="ping")
def test_json_deeper_than_the_limit_is_refused_and_anything_within_it_is_not(
    target: Target, depth: int, method: str
) -> None:
    # The message and its params are two levels; `nested` adds the rest.
    message = {"jsonrpc": "2.0", "id": 7, "method": method, "params": {"_meta": nested(depth - 2)}}
    body = json.dumps(message).encode()
    headers = {"host": target.host, **GOOD}
    answer = target.send("POST", "/mcp", headers, body)
    TALLY.count()
    document = check_answer(answer.status, answer.headers, answer.body, request_body=body, request_headers=headers)
    refused = document.get("error", {}).get("message") == f"JSON nests deeper than {DEPTH_LIMIT} levels"
    assert refused == (depth > DEPTH_LIMIT), (depth, document)


@given(size=st.integers(BODY_LIMIT - 2_000, BODY_LIMIT + 2_000))
@example(size=BODY_LIMIT)
@example(size=BODY_LIMIT + 1)
def test_a_body_over_the_size_limit_is_413_and_one_within_it_is_read(target: Target, size: int) -> None:
    # A ping with padding in params: its answer does not depend on the padding, only on the size.
    head = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"'
    body = head + b"p" * (size - len(head) - 3) + b'"}}'
    assert len(body) == size
    headers = {"host": target.host, **GOOD}
    answer = target.send("POST", "/mcp", headers, body)
    TALLY.count()
    check_answer(answer.status, answer.headers, answer.body, request_body=body, request_headers=headers)
    assert answer.status == (413 if size > BODY_LIMIT else 200), (size, answer.status)


_PATHS = ["/mcp", "/mcp/", "/healthz", "/", "/widgets/display.js", "/playground", "/events", "/MCP", "//mcp"]
_METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "TRACE", "PROPFIND"]


@given(data=st.data())
def test_any_method_on_any_route_is_answered_without_a_5xx(target: Target, data: st.DataObject) -> None:
    method = data.draw(st.sampled_from(_METHODS), label="method")
    path = data.draw(st.sampled_from(_PATHS) | st.from_regex(r"/[A-Za-z0-9._~%/-]{0,30}", fullmatch=True))
    body = data.draw(
        st.sampled_from([b"", b"{}", b'{"jsonrpc":"2.0","id":1,"method":"ping"}']) | st.binary(max_size=64)
    )
    headers = {"host": target.host, **data.draw(st.sampled_from([GOOD, {}, {"accept": "text/html"}]))}
    answer = target.send(method, path, headers, body)
    TALLY.count()
    if path == "/mcp" and method == "POST":
        check_answer(answer.status, answer.headers, answer.body, request_body=body, request_headers=headers)
    else:
        check_other_route(answer.status, answer.headers, answer.body, method=method, sent=path)


@given(
    version=st.sampled_from([HANDSHAKE, "2025-06-18", "2026-07-28", "2099-01-01", ""]) | printable_text,
    method=st.sampled_from(METHODS),
)
def test_a_wrong_protocol_version_header_is_answered_in_json_rpc(target: Target, version: str, method: str) -> None:
    message = {"jsonrpc": "2.0", "id": "v", "method": method, "params": {}}
    body = json.dumps(message).encode()
    headers = {"host": target.host, **GOOD, "mcp-protocol-version": version}
    answer = target.send("POST", "/mcp", headers, body)
    TALLY.count()
    check_answer(answer.status, answer.headers, answer.body, request_body=body, request_headers=headers)
