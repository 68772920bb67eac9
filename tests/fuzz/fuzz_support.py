"""What every fuzzed answer must satisfy, and the case counter the session summary reports."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from fuzz_tally import TALLY as TALLY  # the counter the fuzz tests add their cases to
from jsonschema import Draft202012Validator
from served_tools import OUTPUT_SCHEMAS

# Text that would mean an internal detail left the server: a trace, a source path, a class repr.
LEAK_MARKERS = (
    "Traceback",
    'File "',
    "/work/",
    "lambda_src",
    "site-packages",
    '.py"',
    ".py'",
    "<class '",
    " object at 0x",
)
_EXCEPTION_REPR = re.compile(r"\b[A-Z][A-Za-z]*(?:Error|Exception)\(")
JSON_RPC_KEYS = {"jsonrpc", "id", "result", "error"}


def _strict_json(text: str) -> Any:
    def refuse(constant: str) -> Any:
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def _request_text(request_body: bytes, headers: Mapping[str, str]) -> str:
    """Everything the client sent, in the spellings an echo could take, so echoed input is not called a leak."""
    parts = [request_body.decode("utf-8", "replace"), *headers.values()]
    with contextlib.suppress(ValueError, RecursionError):
        parts.append(json.dumps(json.loads(request_body), ensure_ascii=False))
    return "\n".join(parts)


def assert_no_leak(response_text: str, request_body: bytes, headers: Mapping[str, str]) -> None:
    sent = _request_text(request_body, headers)
    try:
        shown = json.dumps(json.loads(response_text), ensure_ascii=False)
    except (ValueError, RecursionError):
        shown = response_text
    for text in (response_text, shown):
        for marker in LEAK_MARKERS:
            assert marker not in text or marker in sent, f"the answer leaks {marker!r}: {text[:500]}"
        for found in _EXCEPTION_REPR.findall(text):
            assert found in sent, f"the answer shows an exception repr {found!r}: {text[:500]}"


def _valid_id(rid: Any) -> bool:
    return isinstance(rid, (str, int)) and not isinstance(rid, bool)


def _gets_no_reply(message: Any) -> bool:
    """A notification (a method, no id) or a client's response (no method, a result or an error)."""
    if not isinstance(message, dict):
        return False
    if "method" in message:
        return "id" not in message
    return "result" in message or "error" in message


def _called_tool(message: Any) -> str | None:
    """The tool a tools/call request names, if it is one."""
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return None
    params = message.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    return name if isinstance(name, str) else None


def _expected_replies(request_body: bytes) -> tuple[bool, dict[Any, str | None]]:
    """(whether the POST may get an empty 202, each id a reply may carry besides null with the tool its request
    called): a notification or a client's response alone, or a batch of nothing else, gets no reply."""
    try:
        decoded = json.loads(request_body)
    except (ValueError, RecursionError):
        return False, {}
    messages = decoded if isinstance(decoded, list) else [decoded]
    silent = bool(messages) and all(_gets_no_reply(m) for m in messages)
    ids = {m["id"]: _called_tool(m) for m in messages if isinstance(m, dict) and _valid_id(m.get("id"))}
    return silent, ids


def assert_json_rpc_reply(document: Any, expected: Mapping[Any, str | None]) -> None:
    """`expected`: the ids the reply may carry (besides null), each with the served tool its tools/call named,
    whose outputSchema a result's structuredContent must match."""
    assert isinstance(document, dict), document
    assert document.get("jsonrpc") == "2.0", document
    assert set(document) <= JSON_RPC_KEYS, document
    assert "id" in document, document
    assert document["id"] is None or document["id"] in expected, (document["id"], list(expected))
    tool = expected.get(document["id"])
    assert ("result" in document) != ("error" in document), document
    if "error" in document:
        error = document["error"]
        assert isinstance(error, dict), error
        assert isinstance(error.get("code"), int), error
        assert not isinstance(error["code"], bool), error
        assert isinstance(error.get("message"), str), error
        assert set(error) <= {"code", "message", "data"}, error
        assert error["code"] != -32603, f"a masked internal error: {error}"
    else:
        result = document["result"]
        assert isinstance(result, dict), result
        if "content" in result:
            _assert_tool_result(result, tool)


@cache
def _output_validator(tool: str) -> Draft202012Validator:
    return Draft202012Validator(OUTPUT_SCHEMAS[tool])


def _assert_tool_result(result: dict[str, Any], tool: str | None) -> None:
    assert isinstance(result["content"], list), result
    if result.get("isError"):
        error = result["_meta"]["error"]
        assert isinstance(error["code"], str), error
        assert isinstance(error["message"], str), error
        assert error["code"] != "internal_error", f"a tool failed unexpectedly: {error}"
        assert result["content"], result
        assert result["content"][0]["text"] == error["message"], result
    # The TypeScript SDK v1 client (most hosts) rejects a result whose structuredContent misses the outputSchema,
    # errors included: the model would see a schema error instead of the sentence.
    if "structuredContent" in result and tool in OUTPUT_SCHEMAS:
        problems = [e.message for e in _output_validator(tool).iter_errors(result["structuredContent"])]
        assert not problems, (tool, problems, result["structuredContent"])


def check_answer(
    status: int,
    headers: Mapping[str, str],
    body: bytes,
    *,
    request_body: bytes,
    request_headers: Mapping[str, str],
) -> Any:
    """Assert the properties every answer to a POST on /mcp must have; return the decoded body (None if empty)."""
    assert status < 500, (status, body[:500])
    silent, expected = _expected_replies(request_body)
    if status == 202:
        assert silent, "only notifications and client responses may get an empty 202"
        assert body == b""
        return None
    text = body.decode("utf-8")
    assert_no_leak(text, request_body, request_headers)
    assert headers.get("content-type", "").startswith("application/json"), headers
    document = _strict_json(text)
    if status == 200:
        # A batch's replies come as one array (2025-03-26), one reply per request it held.
        replies = document if isinstance(document, list) else [document]
        assert replies, document
        for reply in replies:
            assert_json_rpc_reply(reply, expected)
    else:
        assert 400 <= status < 500, status
        assert isinstance(document, dict), document
        if "jsonrpc" in document:
            assert_json_rpc_reply(document, expected)
    return document


def check_other_route(status: int, headers: Mapping[str, str], body: bytes, *, method: str, sent: str) -> None:
    """Routes beside /mcp (health, unknown paths): never a 5xx, JSON when there is a body, nothing internal."""
    assert status < 500, (status, body[:500])
    if method == "HEAD" or not body:
        return
    text = body.decode("utf-8")
    assert_no_leak(text, sent.encode("utf-8", "surrogatepass"), {})
    assert headers.get("content-type", "").startswith("application/json"), headers
    _strict_json(text)
