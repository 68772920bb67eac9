"""Screen: the refusals that need no caller, in the order a request meets them: its HTTP method, Host and Origin
(CORS preflights answered here), then its body's size, media types, JSON and nesting, routing headers and protocol
version; then each JSON-RPC message's shape, a batch's bounds, and a 2026-07-28 request's envelope (the SDK's
inbound ladder, `Mcp-Name` and `Mcp-Param-*` header agreement)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp.server.lowlevel.server import Server
from mcp.shared.inbound import (
    InboundLadderRejection,
    InboundModernRoute,
    classify_inbound_request,
    decode_header_value,
    validate_mcp_param_headers,
)
from mcp_types import (
    DEFAULT_NEGOTIATED_VERSION,
    HEADER_MISMATCH,
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    PROTOCOL_VERSION_META_KEY,
)
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS

from widget_mcp.transport.guards import (
    CorsPolicy,
    HostAllowlist,
    accepts_json,
    decode_json,
    has_lone_surrogate,
    may_hold_lone_surrogates,
    media_type,
    too_deep,
)
from widget_mcp.transport.header_lines import repeated_routing_header
from widget_mcp.transport.kept_budgets import input_responses_problem
from widget_mcp.transport.replies import HttpReply, error_body
from widget_mcp.transport.steps.exchange import valid_id
from widget_mcp.transport.steps.reply import (
    BrowserReadable,
    era_error,
    not_allowed,
    too_large,
    transport_error,
    unsupported_version,
)

# The tasks extension's requests, which name their task in `Mcp-Name` as tools/call names its tool.
TASK_METHODS = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})
# The revisions whose Streamable HTTP takes JSON-RPC batches (2025-06-18 removed them). A request without
# `MCP-Protocol-Version` is taken as 2025-03-26, as the later revisions tell servers to.
BATCH_VERSIONS = frozenset({"2024-11-05", "2025-03-26"})
DEFAULT_MAX_BATCH_MESSAGES = 8  # MAX_BATCH_MESSAGES's default (settings.py)


class Screen:
    """Each method answers the request (or message) with its refusal, or None when it passes (`body`: its JSON)."""

    __slots__ = ("_browser", "_cors", "_hosts", "_max_batch", "_max_body", "_max_depth", "_preflight", "_server")

    def __init__(
        self,
        server: Server[Any],
        *,
        hosts: HostAllowlist,
        cors: CorsPolicy,
        browser: BrowserReadable,
        max_body: int,
        max_depth: int,
        max_batch: int,
        preflight: tuple[tuple[str, str], ...],
    ) -> None:
        self._server = server
        self._hosts = hosts
        self._cors = cors
        self._browser = browser
        self._max_body = max_body
        self._max_depth = max_depth
        self._max_batch = max_batch
        self._preflight = preflight

    def http(self, method: str, headers: Mapping[str, str], stream_get: bool) -> HttpReply | None:
        """The HTTP method (POST, OPTIONS, or a GET of a stream this server serves: `stream_get`), Host and Origin;
        a CORS preflight is answered here."""
        if method not in ("POST", "OPTIONS") and not stream_get:
            return not_allowed()
        if not self._hosts.allows(headers.get("host")):
            return transport_error(421, INVALID_REQUEST, "Invalid Host header")
        asks_preflight = "access-control-request-method" in headers
        if self._browser.serves_opaque(headers.get("origin")):
            # A sandboxed widget's frame: preflights carry no token, so they are answered; the request itself is
            # screened by its host token (host_identity.py).
            verdict = ("preflight" if asks_preflight else "not_preflight") if method == "OPTIONS" else "serve"
        else:
            verdict = self._cors.screen(method, headers.get("origin"), asks_preflight, self._hosts)
        if verdict == "serve":
            return None
        if verdict == "refuse":
            return transport_error(403, INVALID_REQUEST, "Origin not allowed")
        if verdict == "not_preflight":
            return not_allowed()
        return HttpReply(204, b"", self._preflight)  # the reply step adds the origin

    def too_large(self) -> HttpReply:
        return too_large(self._max_body)

    def body(self, headers: Mapping[str, str], body: bytes) -> object:
        """A POST's body: its JSON, or the refusal (an `HttpReply`) of its size, media types, JSON, nesting,
        repeated routing headers or protocol version."""
        if len(body) > self._max_body:
            return self.too_large()
        if media_type(headers, "content-type") != "application/json":
            return transport_error(415, INVALID_REQUEST, "Content-Type must be application/json")
        if not accepts_json(headers):
            return transport_error(406, INVALID_REQUEST, "Accept must include application/json")
        try:
            decoded = decode_json(body)
        except (ValueError, RecursionError):
            return transport_error(400, PARSE_ERROR, "Parse error: the body is not valid JSON")
        if may_hold_lone_surrogates(body) and has_lone_surrogate(decoded):
            return transport_error(400, PARSE_ERROR, "Parse error: a string holds a lone UTF-16 surrogate")
        if (body.count(b"[") + body.count(b"{") > self._max_depth) and too_deep(decoded, self._max_depth):
            return transport_error(400, INVALID_REQUEST, f"JSON nests deeper than {self._max_depth} levels")
        repeated = repeated_routing_header(headers, decoded)
        if repeated is not None:
            return repeated
        header_version = headers.get("mcp-protocol-version")
        if header_version is not None and header_version not in SUPPORTED_PROTOCOL_VERSIONS:
            return unsupported_version(decoded, header_version)
        return decoded

    def batch(self, messages: list[Any], headers: Mapping[str, str]) -> HttpReply | None:
        """A JSON-RPC batch: only where its revision has them (2025-03-26 and older), not empty, at most
        `max_batch` messages, of which at most one response."""
        version = headers.get("mcp-protocol-version", DEFAULT_NEGOTIATED_VERSION)
        if version not in BATCH_VERSIONS:
            return transport_error(
                400,
                INVALID_REQUEST,
                f"Invalid Request: MCP {version} has no JSON-RPC batches (2025-06-18 removed them); "
                "send one message per request",
            )
        if not messages:
            return transport_error(400, INVALID_REQUEST, "Invalid Request: the batch is empty")
        if len(messages) > self._max_batch:
            return transport_error(
                400, INVALID_REQUEST, f"Invalid Request: a batch may hold at most {self._max_batch} messages"
            )
        if sum(1 for message in messages if isinstance(message, dict) and "method" not in message) > 1:
            # Each answer kept is a write: one a POST, as the protocols that answer kept calls send them.
            return transport_error(400, INVALID_REQUEST, "Invalid Request: a batch may hold one response")
        return None

    @staticmethod
    def message(message: Any) -> HttpReply | None:
        """Any JSON-RPC message: a JSON-RPC 2.0 object."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return transport_error(400, INVALID_REQUEST, "Invalid Request: expected a JSON-RPC 2.0 object")
        return None

    @staticmethod
    def response(message: dict[str, Any], headers: Mapping[str, str]) -> HttpReply | None:
        """A message without a method: a client's response to a request of the server's, well formed, in a revision
        where clients send them (up to 2025-11-25)."""
        has_result, has_error = "result" in message, "error" in message
        if not (has_result or has_error):
            return transport_error(
                400,
                INVALID_REQUEST,
                "Invalid Request: a JSON-RPC message needs a method (a request or notification), "
                "or a result or an error (a response)",
            )
        rid = message.get("id", False)
        if has_result == has_error or not (rid is None or valid_id(rid)):
            return transport_error(
                400, INVALID_REQUEST, "Invalid Request: a JSON-RPC response carries an id and one of result or error"
            )
        if headers.get("mcp-protocol-version") in MODERN_PROTOCOL_VERSIONS:
            return transport_error(
                400,
                INVALID_REQUEST,
                "Invalid Request: in the 2026-07-28 protocol clients send no responses (servers send no requests)",
            )
        return None

    def request(
        self, message: dict[str, Any], headers: Mapping[str, str], batched: bool
    ) -> InboundModernRoute | HttpReply | None:
        """A request: a string method, a valid id, params an object with well-formed `inputResponses`, and no
        `initialize` in a batch. Then the protocol era it is served in: None for the 2025-11-25 handshake's, else
        the SDK's verdict on its 2026-07-28 envelope, or the refusal of the envelope or its headers."""
        rid = message.get("id")
        method = message.get("method")
        params = message.get("params")
        if not isinstance(method, str):
            return transport_error(400, INVALID_REQUEST, "Invalid Request: the method must be a string")
        if not valid_id(rid):
            return transport_error(400, INVALID_REQUEST, "Invalid Request: a request's id is a string or an integer")
        if params is not None and not isinstance(params, dict):
            return HttpReply(400, error_body(rid, INVALID_PARAMS, "params must be an object"))
        if params is not None and (problem := input_responses_problem(params.get("inputResponses"))) is not None:
            return HttpReply(200, error_body(rid, INVALID_PARAMS, problem))
        if batched and method == "initialize":
            # 2025-03-26, lifecycle: the initialize request must not be part of a batch.
            return HttpReply(200, error_body(rid, INVALID_REQUEST, "Invalid Request: initialize cannot be batched"))
        header_version = headers.get("mcp-protocol-version")
        # A batch is the handshake era's: its messages are never served as 2026-07-28 requests.
        modern = not batched and (
            (header_version is not None and header_version not in HANDSHAKE_PROTOCOL_VERSIONS)
            or (
                method != "initialize"
                and isinstance(params, dict)
                and isinstance(params.get("_meta"), dict)
                and PROTOCOL_VERSION_META_KEY in params["_meta"]
            )
        )
        if not modern:
            return None
        verdict = classify_inbound_request(message, headers=headers)
        if isinstance(verdict, InboundLadderRejection):
            return era_error(rid, verdict.code, verdict.message, verdict.data, True)
        if method in TASK_METHODS and not _names_task(params, headers):
            message_ = "mcp-name header does not match the request body's 'taskId' parameter"
            return era_error(rid, HEADER_MISMATCH, message_, None, True)
        if method == "tools/call" and params is not None:
            mismatch = self._param_header_mismatch(params, headers)
            if mismatch is not None:
                return era_error(rid, mismatch.code, mismatch.message, mismatch.data, True)
        return verdict

    def _param_header_mismatch(
        self, params: Mapping[str, Any], headers: Mapping[str, str]
    ) -> InboundLadderRejection | None:
        """For a tool whose arguments are mirrored in `Mcp-Param-*` headers (`x-mcp-header`): whether the headers
        disagree with the body (the SDK's comparison, base64 sentinels included)."""
        lookup = self._server.get_tool_input_schema
        name = params.get("name")
        schema = lookup(name) if lookup is not None and isinstance(name, str) else None
        if schema is None:
            return None
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            return None  # the kernel refuses the params
        return validate_mcp_param_headers(schema, arguments, headers)


def _names_task(params: Mapping[str, Any] | None, headers: Mapping[str, str]) -> bool:
    """Whether a tasks/* request's `Mcp-Name` header names the task its body names (or the body names none)."""
    task_id = params.get("taskId") if isinstance(params, Mapping) else None
    return not isinstance(task_id, str) or decode_header_value(headers.get("mcp-name")) == task_id
