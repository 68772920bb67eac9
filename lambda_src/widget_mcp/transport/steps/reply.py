"""Reply: the HTTP reply to a request, from a refusal, a result or an error. Every reply to a listed browser
origin, errors included, is readable by the page that asked (`BrowserReadable.readable`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import ERROR_CODE_HTTP_STATUS
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    PROTOCOL_VERSION_META_KEY,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS
from pydantic import ValidationError

from widget_mcp.auth.gate import Refused
from widget_mcp.secrets import SecretUnavailable
from widget_mcp.storage.documents import ItemOverBudget, QuotaFull, StoreError
from widget_mcp.toolkit.errors import QuotaExceeded, TooLarge
from widget_mcp.toolkit.results import error_wire
from widget_mcp.transport.call_events import EVENT_STREAM_HEADERS, sse_frame
from widget_mcp.transport.guards import CorsPolicy
from widget_mcp.transport.host_identity import OPAQUE_ORIGIN, HostIdentity, HostRefusal
from widget_mcp.transport.replies import JSON_HEADERS, HttpReply, accepted, error_body
from widget_mcp.transport.resumption import TooManyRequests
from widget_mcp.transport.steps.exchange import Exchange, valid_id
from widget_mcp.transport.steps.log import logger

KEY_UNAVAILABLE = (
    "Input requests cannot be signed or checked right now: the server could not read its requestState key; "
    "try again shortly"
)
# What keeping a call that asked for input may raise (`Streams.suspend`), each answered by `unkept`.
UNKEPT = (QuotaFull, ItemOverBudget, SecretUnavailable, TooManyRequests, StoreError)


class BrowserReadable:
    """Every reply to a listed browser origin, errors included, is readable by the page that asked: a listed
    origin's, or a sandboxed widget frame's (the opaque origin) where host tokens admit those (host_identity.py)."""

    __slots__ = ("_cors", "_host")

    def __init__(self, cors: CorsPolicy, host: HostIdentity) -> None:
        self._cors = cors
        self._host = host

    def readable(self, reply: HttpReply, headers: Mapping[str, str]) -> HttpReply:
        origin = headers.get("origin")
        if origin is None or not (self._cors.lists(origin) or self.serves_opaque(origin)):
            return reply
        return replace(reply, headers=reply.headers + CorsPolicy.reply_headers(origin))

    def serves_opaque(self, origin: str | None) -> bool:
        return origin == OPAQUE_ORIGIN and self._host.serves_opaque_origin


def transport_error(status: int, code: int, message: str, *extra: tuple[str, str]) -> HttpReply:
    return HttpReply(status, error_body(None, code, message), JSON_HEADERS + extra)


def not_allowed() -> HttpReply:
    return transport_error(405, INVALID_REQUEST, "Method not allowed: POST a JSON-RPC message", ("allow", "POST"))


def too_large(max_body: int) -> HttpReply:
    return transport_error(413, INVALID_REQUEST, f"Request body exceeds {max_body} bytes")


def unsupported_version(message: Any, version: str) -> HttpReply:
    """2025-06-18 to 2025-11-25: 400 for an unsupported MCP-Protocol-Version; 2026-07-28 adds this error, whose
    `data.supported` lists what the client may retry with: for a request in the 2026-07-28 envelope, the versions
    `server/discover` advertises; for any other, every version the server negotiates."""
    rid = message.get("id") if isinstance(message, dict) and valid_id(message.get("id")) else None
    params = message.get("params") if isinstance(message, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    modern = isinstance(meta, dict) and PROTOCOL_VERSION_META_KEY in meta
    requested = version[:64]
    text = (
        f"Unsupported MCP-Protocol-Version header {requested!r}: this server speaks "
        f"{', '.join(MODERN_PROTOCOL_VERSIONS)} (per-request envelope) and "
        f"{', '.join(HANDSHAKE_PROTOCOL_VERSIONS)} (after initialize)"
    )
    supported = MODERN_PROTOCOL_VERSIONS if modern else SUPPORTED_PROTOCOL_VERSIONS
    data = {"supported": list(supported), "requested": requested}
    return HttpReply(400, error_body(rid, UNSUPPORTED_PROTOCOL_VERSION, text, data))


def era_error(rid: Any, code: int, message: str, data: Any, modern: bool) -> HttpReply:
    # The 2026-07-28 transport maps error codes to HTTP statuses; the handshake era answers 200.
    status = ERROR_CODE_HTTP_STATUS.get(code, 200) if modern else 200
    return HttpReply(status, error_body(rid, code, message, data))


def challenge(rid: Any, refused: Refused) -> HttpReply:
    if refused.in_band:
        result = {**refused.tool_result(), "resultType": "complete"}
        return HttpReply(200, json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode())
    body = error_body(rid, INVALID_REQUEST, refused.description, {"error": refused.code})
    return HttpReply(refused.status, body, (*JSON_HEADERS, ("www-authenticate", refused.www_authenticate)))


def host_refused(rid: Any, refusal: HostRefusal) -> HttpReply:
    return HttpReply(
        refusal.status, error_body(rid, INVALID_REQUEST, refusal.message), (*JSON_HEADERS, *refusal.headers)
    )


def result_reply(exchange: Exchange, body: bytes, result: dict[str, Any]) -> HttpReply:
    """A request's result (`body`, its JSON-RPC response), but an `initialize`'s (dispatch.py adds its session)."""
    if exchange.method == "tools/call":
        retry_after = _retry_after(result)
        if retry_after is not None:
            return HttpReply(200, body, (*JSON_HEADERS, ("retry-after", retry_after)))
    if exchange.events is not None and exchange.events.frames:
        # A buffered stream: the notifications the tool sent, then the response.
        return HttpReply(200, b"".join(exchange.events.frames) + sse_frame(body), EVENT_STREAM_HEADERS)
    return HttpReply(200, body)


def escaped_result(rid: str | int, result: dict[str, Any]) -> HttpReply:
    """A result holding a lone surrogate made by a tool: escaped, it is still valid JSON."""
    reply = {"jsonrpc": "2.0", "id": rid, "result": result}
    return HttpReply(200, json.dumps(reply, separators=(",", ":")).encode())


def failure(exchange: Exchange, exc: Exception) -> HttpReply:
    """A request whose serving raised: its JSON-RPC error, logged when unexpected."""
    rid, modern = exchange.rid, exchange.modern
    if isinstance(exc, MCPError):
        reply = era_error(rid, exc.error.code, exc.error.message, exc.error.data, modern)
        seconds = exc.error.data.get("retryAfter") if isinstance(exc.error.data, dict) else None
        if isinstance(seconds, int) and not isinstance(seconds, bool) and seconds >= 0:
            # A refusal that says when to try again (`rate_limited`) says it in HTTP's terms too, as tools do.
            return HttpReply(reply.status, reply.body, (*reply.headers, ("retry-after", str(seconds))))
        return reply
    if isinstance(exc, ValidationError):
        return era_error(rid, INVALID_PARAMS, "Invalid request parameters", None, modern)
    if isinstance(exc, SecretUnavailable):
        # REQUEST_STATE_SECRET_ARN could not be read (the one key read while a request is served): the server's
        # fault, passing; the key is read again by the next call that needs it.
        logger.error("input requests cannot be signed or checked: %s", exc)
        body = error_body(rid, INTERNAL_ERROR, KEY_UNAVAILABLE)
        return HttpReply(503, body, (*JSON_HEADERS, ("retry-after", "1")))
    logger.error("unhandled error while serving %s", exchange.method, exc_info=exc)
    return era_error(rid, INTERNAL_ERROR, "Internal server error", None, modern)


def unkept(exchange: Exchange, exc: Exception) -> HttpReply:
    """A resumable call that asked for input but could not be kept while it waits (`Streams.suspend` raised one of
    `UNKEPT`): the caller's error."""
    if isinstance(exc, QuotaFull):
        full = QuotaExceeded("calls waiting for your answers", exc.limit, exc.frees_at, "Answering one of them")
        wire = error_wire(full.code, full.message, details=full.details)
        return HttpReply(200, json.dumps({"jsonrpc": "2.0", "id": exchange.rid, "result": wire}).encode())
    if isinstance(exc, ItemOverBudget):
        logger.warning("a call that asked for input is too large to keep: %s", exc)
        advice = "Call the tool again with smaller arguments and _meta, or answer with less."
        too_big = TooLarge("call, with what it was asked and answered,", exc.size, exc.budget, advice)
        wire = error_wire(too_big.code, too_big.message, details=too_big.details)
        return HttpReply(200, json.dumps({"jsonrpc": "2.0", "id": exchange.rid, "result": wire}).encode())
    if isinstance(exc, SecretUnavailable):
        logger.error("a call that asked for input cannot be signed: %s", exc)
        return HttpReply(
            503, error_body(exchange.rid, INTERNAL_ERROR, KEY_UNAVAILABLE), (*JSON_HEADERS, ("retry-after", "1"))
        )
    if isinstance(exc, TooManyRequests):
        logger.error("tool %s: %s", (exchange.params or {}).get("name"), exc)
        return HttpReply(200, error_body(exchange.rid, INTERNAL_ERROR, f"The tool failed: {exc}"))
    logger.error("a call that asked for input could not be kept: %s", exc)
    message = "The server could not keep this call while it waits for your answers; try again shortly"
    return HttpReply(200, error_body(exchange.rid, INTERNAL_ERROR, message))


def kept_stream(exchange: Exchange, body: bytes) -> HttpReply:
    """A kept call's stream (`body`: its events, from `Streams.suspend`), ending at its input requests."""
    notifications = b"".join(exchange.events.frames) if exchange.events is not None else b""
    # The priming event comes first (it carries the id the client resumes from), then what the tool sent.
    priming, _, requests = body.partition(b"\n\n")
    return HttpReply(200, priming + b"\n\n" + notifications + requests, EVENT_STREAM_HEADERS)


def batch_reply(replies: list[HttpReply]) -> HttpReply:
    """The replies to a batch's requests as one JSON array (JSON-RPC 2.0, 6); 202 when it held none."""
    bodies = [reply.body for reply in replies if reply.body]
    if not bodies:
        return accepted()
    return HttpReply(200, b"[" + b",".join(bodies) + b"]")


def _retry_after(result: dict[str, Any]) -> str | None:
    """A tool error that says when to try again (`_meta.error.retryAfter`, in seconds: `rate_limited`) says it in
    HTTP's own terms too, for proxies, gateways and clients that read the header."""
    if result.get("isError") is not True:
        return None
    meta = result.get("_meta")
    error = meta.get("error") if isinstance(meta, dict) else None
    seconds = error.get("retryAfter") if isinstance(error, dict) else None
    if isinstance(seconds, int) and not isinstance(seconds, bool) and seconds >= 0:
        return str(seconds)
    return None
