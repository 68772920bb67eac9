"""The two ways a request reaches the product in these tests: the Lambda handler with API Gateway events, and
real HTTP on loopback. Both answer (status, lower-case headers, body bytes)."""

from __future__ import annotations

import base64
import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from form_keys import SHOWS_WIDGETS, answer_key
from fuzz_strategies import FLIGHT, SUBJECTS, Pools, nested_steps

SAMPLES = Path(__file__).resolve().parent.parent / "events"
Handler = Callable[[dict[str, Any], Any], dict[str, Any]]


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


class LambdaContext:
    aws_request_id = "f0e4b6f2-0000-4000-8000-00000000f022"
    function_name = "widget-mcp"
    function_version = "$LATEST"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:eu-west-1:123456789012:function:widget-mcp"

    @staticmethod
    def get_remaining_time_in_millis() -> int:
        return 29_000


class LambdaTarget:
    """Builds API Gateway HTTP API (v2) or REST (v1) proxy events around a request and invokes the handler."""

    name = "lambda"

    def __init__(self, handler: Handler, host: str, pools: Pools | None = None) -> None:
        self._handler = handler
        self.host = host
        self.pools = pools or Pools([], [])
        self._v2 = json.loads((SAMPLES / "apigw-http-v2.json").read_text())
        self._v1 = json.loads((SAMPLES / "apigw-rest-v1.json").read_text())

    def event(
        self, method: str, path: str, headers: dict[str, str], body: bytes, *, rest: bool = False, b64: bool = False
    ) -> dict[str, Any]:
        try:
            text = body.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            b64 = True  # API Gateway sends a body that is not text as base64
        if b64:
            text = base64.b64encode(body).decode()
        if rest:
            event = copy.deepcopy(self._v1)
            event["httpMethod"] = event["requestContext"]["httpMethod"] = method
            event["path"] = path
            event["headers"] = dict(headers)
            event["multiValueHeaders"] = {name: [value] for name, value in headers.items()}
        else:
            event = copy.deepcopy(self._v2)
            event["rawPath"] = event["requestContext"]["http"]["path"] = path
            event["requestContext"]["http"]["method"] = method
            event["routeKey"] = event["requestContext"]["routeKey"] = f"{method} {path}"
            event["headers"] = dict(headers)
        event["body"] = text
        event["isBase64Encoded"] = b64
        return event

    def raw(self, event: dict[str, Any]) -> dict[str, Any]:
        return self._handler(event, LambdaContext())

    def invoke(self, event: dict[str, Any]) -> Answer:
        reply = self.raw(event)
        assert isinstance(reply, dict), reply
        assert isinstance(reply.get("statusCode"), int), reply
        raw = reply.get("body") or ""
        body = base64.b64decode(raw) if reply.get("isBase64Encoded") else raw.encode("utf-8")
        headers = {str(k).lower(): str(v) for k, v in (reply.get("headers") or {}).items()}
        return Answer(reply["statusCode"], headers, body)

    def send(
        self, method: str, path: str, headers: dict[str, str], body: bytes, *, rest: bool = False, b64: bool = False
    ) -> Answer:
        return self.invoke(self.event(method, path, headers, body, rest=rest, b64=b64))


class HttpTarget:
    """The FastAPI app served by uvicorn on a loopback port, reached with a real HTTP client."""

    name = "http"

    def __init__(self, base_url: str, host: str, pools: Pools | None = None) -> None:
        self._base = base_url
        self.host = host
        self.pools = pools or Pools([], [])
        self._client = httpx.Client(timeout=30)
        # The client's default Accept would hide the "no Accept header" case.
        del self._client.headers["accept"]

    def send(self, method: str, path: str, headers: dict[str, str], body: bytes, **_: Any) -> Answer:
        # HTTP drops whitespace around a header value; the client refuses to send it at all.
        sent = {name: value.strip() for name, value in headers.items()}
        request = self._client.build_request(method, self._base + path, content=body, headers=sent)
        response = self._client.send(request)
        return Answer(response.status_code, {k.lower(): v for k, v in response.headers.items()}, response.content)

    def close(self) -> None:
        self._client.close()


def host_from_allowlist(patterns: tuple[str, ...]) -> str:
    """A Host header the server accepts: its first allowed name, with a port where any port is allowed."""
    first = patterns[0]
    return f"{first[:-2]}:443" if first.endswith(":*") else first


def call_tool(target: LambdaTarget | HttpTarget, name: str, arguments: dict[str, Any], subject: str) -> dict[str, Any]:
    """The whole result of a call that must succeed, made as `subject` in ChatGPT (whose forms are widgets)."""
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": {"openai/subject": subject, **SHOWS_WIDGETS}},
    }
    headers = {"host": target.host, "content-type": "application/json", "accept": "application/json"}
    answer = target.send("POST", "/mcp", headers, json.dumps(message).encode())
    assert answer.status == 200, answer
    result: dict[str, Any] = json.loads(answer.body)["result"]
    assert not result.get("isError"), result
    return result


def seed(target: LambdaTarget | HttpTarget) -> Pools:
    """Games and forms that exist for each fuzzed caller, so fuzzed calls reach stored state."""
    pools = Pools([], [])
    for subject in SUBJECTS:
        for opponent in ("human", "engine"):
            game = call_tool(target, "chess_new_game", {"opponent": opponent}, subject)
            pools.game_ids.append(game["structuredContent"]["gameId"])
        for form in ({"question": FLIGHT}, {"question": FLIGHT, "metadata": nested_steps(1)}):
            asked = call_tool(target, "ask_question", form, subject)
            pools.form_ids.append(asked["structuredContent"]["formId"])
            key = answer_key(asked)
            assert key is not None, "a form ChatGPT shows comes with its widget's answer key"
            pools.answer_keys[asked["structuredContent"]["formId"]] = key
    target.pools = pools
    return pools
