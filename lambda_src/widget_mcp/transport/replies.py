"""What the endpoint answers an HTTP request with, and the JSON-RPC bodies it builds for it."""

from __future__ import annotations

import json
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any

JSON_HEADERS: tuple[tuple[str, str], ...] = (("content-type", "application/json"),)


@dataclass(frozen=True, slots=True)
class HttpReply:
    status: int
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = JSON_HEADERS


Pending = Coroutine[Any, Any, HttpReply]


def error_body(request_id: Any, code: int, message: str, data: Any = None) -> bytes:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}, separators=(",", ":")).encode()


def accepted() -> HttpReply:
    """A POST of notifications or responses only: accepted, and answered with no body (every revision)."""
    return HttpReply(202, b"", ())
