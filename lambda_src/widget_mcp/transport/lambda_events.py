"""API Gateway events (HTTP API v2 and REST v1 proxy) to and from plain HTTP requests and replies."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from widget_mcp.transport.header_lines import HeaderLines, header_lines, joined_header_lines
from widget_mcp.transport.replies import HttpReply


class EventError(ValueError):
    """The event is not an API Gateway proxy event this handler understands."""


@dataclass(frozen=True, slots=True)
class HttpRequest:
    method: str
    path: str
    headers: Mapping[str, str]
    body: bytes
    request_id: str | None
    version: str  # "2.0" or "1.0": replies mirror the event's format
    # The address API Gateway received the request from (its connection's peer, not a header).
    source_ip: str | None = None


def _object(value: Any, what: str) -> Mapping[str, Any]:
    """A nested event object; API Gateway may send null for an empty one, never another type."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise EventError(f"the event's {what} is not an object")
    return value


def _headers(event: Mapping[str, Any]) -> HeaderLines:
    """v2 joins a repeated header's values with commas; v1 lists them in multiValueHeaders (header_lines.py)."""
    single = {str(k): str(v) for k, v in _object(event.get("headers"), "headers").items()}
    headers = joined_header_lines(single) if event.get("version") == "2.0" else header_lines(single.items())
    for name, values in _object(event.get("multiValueHeaders"), "multiValueHeaders").items():
        if values is None:
            continue
        if not isinstance(values, list):
            raise EventError("the event's multiValueHeaders are not lists")
        if values:
            headers[str(name).lower()] = ",".join(str(v) for v in values)
        if len(values) > 1:
            headers.saw_repeated(str(name).lower())
    return headers


def _body(event: Mapping[str, Any]) -> bytes:
    body = event.get("body")
    if body is None:
        return b""
    if not isinstance(body, str):
        raise EventError("the event's body is not a string")
    if event.get("isBase64Encoded"):
        try:
            return base64.b64decode(body, validate=True)
        except (binascii.Error, ValueError):
            raise EventError("the body is marked base64 but is not valid base64") from None
    # surrogatepass: a lone surrogate becomes bytes the JSON decoder refuses, instead of an encoding crash here.
    return body.encode("utf-8", "surrogatepass")


def _strip_stage(path: str, stage: object) -> str:
    # API Gateway keeps a named stage in the path (`/prod/mcp`); `$default` adds nothing.
    if isinstance(stage, str) and stage and stage != "$default" and path.startswith(f"/{stage}/"):
        return path[len(stage) + 1 :]
    return path or "/"


def parse_event(event: Any) -> HttpRequest:
    if not isinstance(event, Mapping):
        raise EventError("not an API Gateway proxy event")
    ctx = _object(event.get("requestContext"), "requestContext")
    if event.get("version") == "2.0":
        http = _object(ctx.get("http"), "requestContext.http")
        method, path, version = http.get("method"), event.get("rawPath"), "2.0"
        source_ip = http.get("sourceIp")
    elif "httpMethod" in event:
        method, path, version = event.get("httpMethod"), event.get("path"), "1.0"
        source_ip = _object(ctx.get("identity"), "requestContext.identity").get("sourceIp")
    else:
        raise EventError("not an API Gateway proxy event")
    if not isinstance(method, str) or not isinstance(path, str):
        raise EventError("the event has no HTTP method or path")
    request_id = ctx.get("requestId")
    return HttpRequest(
        method=method.upper(),
        path=_strip_stage(path, ctx.get("stage")),
        headers=_headers(event),
        body=_body(event),
        request_id=request_id if isinstance(request_id, str) else None,
        version=version,
        source_ip=source_ip if isinstance(source_ip, str) else None,
    )


def to_response(reply: HttpReply, version: str) -> dict[str, Any]:
    headers = dict(reply.headers)
    response: dict[str, Any] = {
        "statusCode": reply.status,
        "headers": headers,
        "body": reply.body.decode("utf-8"),
        "isBase64Encoded": False,
    }
    if version == "1.0":
        response["multiValueHeaders"] = {k: [v] for k, v in headers.items()}
    return response
