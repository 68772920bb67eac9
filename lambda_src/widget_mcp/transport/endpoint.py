"""The MCP endpoint as a pure function of (method, headers, body): shared by Lambda, uvicorn and tests.

Every POST is one self-contained JSON-RPC exchange served by the SDK's single-exchange kernel
(`serve_one`) with a fresh per-request `Connection`. Nothing lives between requests, so there is no
session manager and no lifespan to re-enter on warm Lambda invocations. Both protocol eras are served:
the 2025-11-25 handshake (answered statelessly, like the SDK's stateless mode) and the 2026-07-28
per-request envelope.

Answers to the read-only methods (initialize, server/discover, ping, the lists, template reads) are replayed
from the SDK's own earlier answers (answer_cache.py), after every guard and the sign-in gate; `begin` hands them
back without an event loop.

A `tools/call` of a tool that never waits (a sync tool run inline, as on Lambda) is served by the same kernel
(`ServerRunner.on_request`: the same validation, handler and result shaping as `serve_one`) driven by hand
(inline_call.py), so `begin` answers it without an event loop too. Everything else runs `serve_one` on the loop.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from itertools import chain
from typing import Any, TypeGuard

import anyio.to_thread
from mcp.server.lowlevel.server import Server
from mcp.server.runner import ServerRunner, serve_one
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import (
    ERROR_CODE_HTTP_STATUS,
    InboundLadderRejection,
    classify_inbound_request,
    decode_header_value,
    validate_mcp_param_headers,
)
from mcp.shared.message import ServerMessageMetadata
from mcp.shared.transport_context import TransportContext
from mcp_types import (
    DEFAULT_NEGOTIATED_VERSION,
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    PROTOCOL_VERSION_META_KEY,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS
from pydantic import ValidationError

from widget_mcp.auth.gate import Refused, SignInGate
from widget_mcp.secrets import SecretUnavailable
from widget_mcp.storage.documents import ItemOverBudget, QuotaFull, StoreError
from widget_mcp.toolkit.errors import QuotaExceeded, TooLarge
from widget_mcp.toolkit.limits import CallLimiter
from widget_mcp.toolkit.results import error_wire
from widget_mcp.transport.answer_cache import AnswerCache, Key, encode, reply_body
from widget_mcp.transport.call_events import (
    EVENT_STREAM_HEADERS,
    CallEvents,
    LiveStream,
    accepts_event_stream,
    sse_frame,
)
from widget_mcp.transport.caller import Caller
from widget_mcp.transport.client_address import DeferredAddress
from widget_mcp.transport.dispatch_context import SingleExchangeContext, envelope_connection
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
from widget_mcp.transport.host_identity import OPAQUE_ORIGIN, HostIdentity, HostRefusal
from widget_mcp.transport.inline_call import Suspended, run_inline
from widget_mcp.transport.kept_budgets import input_responses_problem
from widget_mcp.transport.replies import JSON_HEADERS, HttpReply, Pending, accepted, error_body
from widget_mcp.transport.resumption import (
    MAX_RESUMABLE_ID_LENGTH,
    RESUMING_VERSION,
    Resuming,
    Session,
    Streams,
    SuspendCall,
    TooManyRequests,
)
from widget_mcp.transport.session_listing import READ_BY_SESSION, listing_key
from widget_mcp.transport.stream_gets import StreamGets
from widget_mcp.transport.subscriptions import Subscriptions

logger = logging.getLogger(__name__)

# The 2025-11-25 requests that need the client's session (with RESUMABLE_STREAMS): its subscriptions are kept by it.
SESSION_METHODS = frozenset({"resources/subscribe", "resources/unsubscribe"})
# The tasks extension's requests, which name their task in `Mcp-Name` as tools/call names its tool.
TASK_METHODS = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})

KEY_UNAVAILABLE = (
    "Input requests cannot be signed or checked right now: the server could not read its requestState key; "
    "try again shortly"
)
# The revisions whose Streamable HTTP takes JSON-RPC batches (2025-06-18 removed them). A request without
# `MCP-Protocol-Version` is taken as 2025-03-26, as the later revisions tell servers to.
BATCH_VERSIONS = frozenset({"2024-11-05", "2025-03-26"})
DEFAULT_MAX_BATCH_MESSAGES = 8  # MAX_BATCH_MESSAGES's default (settings.py)
ONE_CALL_PER_BATCH = "Invalid Request: a batch may hold one tools/call; send each other call in a POST of its own"


@dataclass(frozen=True, slots=True)
class RequestInfo:
    """What the tool layer may know about the HTTP request that carried a call."""

    headers: Mapping[str, str]
    request_id: str | None = None
    # The verified OAuth subject, when sign-in is on and the caller sent a valid token.
    subject: str | None = None
    # The user a host vouched for with a valid host token (`<host>/<user id>`), when sign-in is off.
    host_subject: str | None = None
    # Looks up the caller's address as per-source limits count it (client_address.py), once, when first asked.
    locate_source: Callable[[], str | None] | None = None
    # Where a tools/call's notifications go, when the client accepts an event stream.
    events: CallEvents | None = None
    # A 2025-11-25 client's capabilities and name, from its signed session (resumption.py), for a request whose
    # answer depends on them (session_listing.py); None otherwise.
    session_capabilities: Mapping[str, Any] | None = None
    session_client: str | None = None
    # The call's event stream can carry its input requests and be resumed for their answers (a JSON-only call's
    # cannot: its session still says what the client shows).
    resumable_stream: bool = False
    # The 2025-11-25 client's verified session (its nonce), when RESUMABLE_STREAMS is on; None otherwise.
    session_id: str | None = None
    # The call was counted against its caller's rate limit already (a kept call's rerun, admitted by its GET).
    admitted: bool = False

    @property
    def source(self) -> str | None:
        """The caller's address; None when unknown (in-process)."""
        return self.locate_source() if self.locate_source is not None else None


@dataclass(frozen=True, slots=True)
class _Exchange:
    """One JSON-RPC request that passed the transport's checks, with the protocol era it is served in."""

    rid: str | int
    method: str
    params: dict[str, Any] | None
    headers: Mapping[str, str]
    http_request_id: str | None
    modern: bool
    version: str
    client_info: Any = None
    client_capabilities: Any = None
    peer: str | None = None
    events: CallEvents | None = None
    # A 2025-11-25 request's session (RESUMABLE_STREAMS), whether its stream can carry input requests, and the kept
    # call it resumes.
    session: Session | None = None
    resumable: bool = False
    resuming: Resuming | None = None
    caller: Caller = field(default_factory=Caller)


# What one message of a POST gets: its reply (at once or later), or None when it is answered by nothing (a
# notification, or a response to the client's own request).
Answer = HttpReply | Pending | None


def _transport_error(status: int, code: int, message: str, *extra: tuple[str, str]) -> HttpReply:
    return HttpReply(status, error_body(None, code, message), JSON_HEADERS + extra)


def _not_allowed() -> HttpReply:
    return _transport_error(405, INVALID_REQUEST, "Method not allowed: POST a JSON-RPC message", ("allow", "POST"))


def _challenge(rid: Any, refused: Refused) -> HttpReply:
    if refused.in_band:
        result = {**refused.tool_result(), "resultType": "complete"}
        return HttpReply(200, json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode())
    body = error_body(rid, INVALID_REQUEST, refused.description, {"error": refused.code})
    return HttpReply(refused.status, body, (*JSON_HEADERS, ("www-authenticate", refused.www_authenticate)))


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


def _valid_id(value: Any) -> TypeGuard[str | int]:
    return (isinstance(value, (str, int))) and not isinstance(value, bool)


def _unsupported_version(message: Any, version: str) -> HttpReply:
    """2025-06-18 to 2025-11-25: 400 for an unsupported MCP-Protocol-Version; 2026-07-28 adds this error, whose
    `data.supported` lists what the client may retry with: for a request in the 2026-07-28 envelope, the versions
    `server/discover` advertises; for any other, every version the server negotiates."""
    rid = message.get("id") if isinstance(message, dict) and _valid_id(message.get("id")) else None
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


class McpEndpoint:
    """Answers one HTTP request to `/mcp`. Construct once per process; `handle` is re-entrant."""

    def __init__(
        self,
        server: Server[Any],
        *,
        allowed_hosts: HostAllowlist,
        max_body_bytes: int,
        max_json_depth: int,
        gate: SignInGate | None = None,
        cors: CorsPolicy | None = None,
        answer_cache: bool = True,
        inline_tools: Callable[[object], bool] | None = None,
        host_identity: HostIdentity | None = None,
        max_batch_messages: int = DEFAULT_MAX_BATCH_MESSAGES,
        fixed_resource: Callable[[object], bool] | None = None,
        trusted_proxy_hops: int = 0,
        streams: Streams | None = None,
        subscriptions: Subscriptions | None = None,
        limiter: CallLimiter | None = None,
    ) -> None:
        """`answer_cache`: answer the read-only methods from the server's earlier answers (answer_cache.py); the
        server's answers to them must then stay the same while the process lives. `fixed_resource(uri)`: whether
        that is so for `resources/read` of `uri` (without it, of every URI).

        `inline_tools(name)`: whether a call of that tool runs to its end without ever waiting (no I/O on the event
        loop, no worker thread); those calls are served without an event loop.

        `max_batch_messages`: the most messages a JSON-RPC batch (2025-03-26 and older) may hold; of them, one
        `tools/call` is served (each may take a request's worth of work), the others get an error.

        `trusted_proxy_hops`: how many proxies in front append the client's address to X-Forwarded-For (0: the
        header is never read, the connection's peer is the caller).

        `streams`: resume 2025-11-25 calls that ask for input (resumption.py): GET with a `Last-Event-ID` this server
        issued is then served; every other GET is 405 either way. `subscriptions` (with `streams`): a session's
        standalone stream, GET with its `Mcp-Session-Id`, delivers the changes of the resources it subscribed to."""
        self._streams = streams
        self._gets = (
            StreamGets(
                streams,
                subscriptions,
                self._identify,
                self._request,
                limiter=limiter,
                proxy_hops=trusted_proxy_hops,
                trust_hints=gate is None,
            )
            if streams is not None
            else None
        )
        # A browser client resumes a stream with GET (and headers that need a preflight).
        self._preflight = (
            CorsPolicy.preflight_headers("GET, POST, OPTIONS") if streams else CorsPolicy.PREFLIGHT_HEADERS
        )
        self._proxy_hops = trusted_proxy_hops
        self._server = server
        self._inline_tools = inline_tools
        self._fixed_resource = fixed_resource
        self._answers = AnswerCache() if answer_cache else None
        self._gate = gate
        self._hosts = allowed_hosts
        self._cors = cors or CorsPolicy()
        self._max_body = max_body_bytes
        self._max_depth = max_json_depth
        self._host = host_identity or HostIdentity(None, lambda _name: False, sign_in=gate is not None)
        self._max_batch = max_batch_messages
        # The server's lifespan is never entered: nothing here outlives a request.
        self._lifespan_state: dict[str, Any] = {}

    def oversized(self, headers: Mapping[str, str]) -> HttpReply:
        """The 413 for a body over the limit, for adapters that refuse it before reading it all."""
        return self._for_browser(self._too_large(), headers)

    def _too_large(self) -> HttpReply:
        return _transport_error(413, INVALID_REQUEST, f"Request body exceeds {self._max_body} bytes")

    def begin(
        self,
        method: str,
        headers: Mapping[str, str],
        body: bytes,
        request_id: str | None = None,
        peer: str | None = None,
        *,
        live: LiveStream | None = None,
    ) -> HttpReply | Pending:
        """The reply at once when no event loop is needed (a guard's refusal, a notification, a cached answer),
        else the coroutine that serves the request. `headers` must have lower-case names; `peer` is the address
        the request came from (API Gateway's sourceIp, the ASGI client).

        With `live`, a tool's notifications are pushed there as it runs, and the caller streams them before the
        reply (call_events.py); without it, they come back in the reply's body."""
        reply = self._handle(method, headers, body, request_id, peer, live)
        if isinstance(reply, HttpReply):
            return self._for_browser(reply, headers)
        return self._browser_reply(reply, headers)

    async def handle(
        self,
        method: str,
        headers: Mapping[str, str],
        body: bytes,
        request_id: str | None = None,
        peer: str | None = None,
        *,
        live: LiveStream | None = None,
    ) -> HttpReply:
        """`headers` must have lower-case names."""
        reply = self.begin(method, headers, body, request_id, peer, live=live)
        return reply if isinstance(reply, HttpReply) else await reply

    def event_stream_headers(self, headers: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
        """The headers that start a streamed reply to a request with these headers."""
        return self._for_browser(HttpReply(200, b"", EVENT_STREAM_HEADERS), headers).headers

    def forget_answers(self) -> None:
        """Drop every cached answer (for a server whose lists or templates changed)."""
        if self._answers is not None:
            self._answers.clear()

    async def _browser_reply(self, pending: Pending, headers: Mapping[str, str]) -> HttpReply:
        return self._for_browser(await pending, headers)

    def _for_browser(self, reply: HttpReply, headers: Mapping[str, str]) -> HttpReply:
        """Every reply to a listed browser origin, errors included, is readable by the page that asked."""
        origin = headers.get("origin")
        if origin is None or not (self._cors.lists(origin) or self._serves_opaque(origin)):
            return reply
        return replace(reply, headers=reply.headers + CorsPolicy.reply_headers(origin))

    def _serves_opaque(self, origin: str | None) -> bool:
        return origin == OPAQUE_ORIGIN and self._host.serves_opaque_origin

    def _handle(
        self,
        method: str,
        headers: Mapping[str, str],
        body: bytes,
        request_id: str | None,
        peer: str | None,
        live: LiveStream | None = None,
    ) -> HttpReply | Pending:
        asked = self._gets.asked(headers) if method == "GET" and self._gets is not None else None
        if method not in ("POST", "OPTIONS") and asked is None:
            return _not_allowed()
        if not self._hosts.allows(headers.get("host")):
            return _transport_error(421, INVALID_REQUEST, "Invalid Host header")
        asks_preflight = "access-control-request-method" in headers
        if self._serves_opaque(headers.get("origin")):
            # A sandboxed widget's frame: preflights carry no token, so they are answered; the request itself is
            # screened by its host token (host_identity.py).
            verdict = ("preflight" if asks_preflight else "not_preflight") if method == "OPTIONS" else "serve"
        else:
            verdict = self._cors.screen(method, headers.get("origin"), asks_preflight, self._hosts)
        if verdict != "serve":
            if verdict == "refuse":
                return _transport_error(403, INVALID_REQUEST, "Origin not allowed")
            if verdict == "not_preflight":
                return _not_allowed()
            return HttpReply(204, b"", self._preflight)  # `begin` adds the origin
        if asked is not None:
            assert self._gets is not None
            return self._gets.get(*asked, headers, request_id, peer)
        if len(body) > self._max_body:
            return self._too_large()
        if media_type(headers, "content-type") != "application/json":
            return _transport_error(415, INVALID_REQUEST, "Content-Type must be application/json")
        if not accepts_json(headers):
            return _transport_error(406, INVALID_REQUEST, "Accept must include application/json")

        try:
            decoded = decode_json(body)
        except (ValueError, RecursionError):
            return _transport_error(400, PARSE_ERROR, "Parse error: the body is not valid JSON")
        if may_hold_lone_surrogates(body) and has_lone_surrogate(decoded):
            return _transport_error(400, PARSE_ERROR, "Parse error: a string holds a lone UTF-16 surrogate")
        if (body.count(b"[") + body.count(b"{") > self._max_depth) and too_deep(decoded, self._max_depth):
            return _transport_error(400, INVALID_REQUEST, f"JSON nests deeper than {self._max_depth} levels")
        repeated = repeated_routing_header(headers, decoded)
        if repeated is not None:
            return repeated
        header_version = headers.get("mcp-protocol-version")
        if header_version is not None and header_version not in SUPPORTED_PROTOCOL_VERSIONS:
            return _unsupported_version(decoded, header_version)
        if isinstance(decoded, list):
            return self._batch(decoded, headers, request_id, peer)
        answer = self._message(decoded, headers, request_id, peer, live=live)
        return accepted() if answer is None else answer

    def _message(
        self,
        message: Any,
        headers: Mapping[str, str],
        http_request_id: str | None,
        peer: str | None,
        *,
        batched: bool = False,
        live: LiveStream | None = None,
    ) -> Answer:
        """One JSON-RPC message, alone in its POST or one of a batch's."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return _transport_error(400, INVALID_REQUEST, "Invalid Request: expected a JSON-RPC 2.0 object")
        if "method" not in message:
            return self._client_response(message, headers, peer)
        if "id" not in message:
            # A notification: nothing to act on in a stateless exchange, and it gets no JSON-RPC reply.
            return None
        return self._request(message, headers, http_request_id, peer, batched=batched, live=live)

    def _client_response(
        self, message: dict[str, Any], headers: Mapping[str, str], peer: str | None
    ) -> HttpReply | Pending | None:
        """A message without a method: a client's response to a request of the server's, if well formed."""
        has_result, has_error = "result" in message, "error" in message
        if not (has_result or has_error):
            return _transport_error(
                400,
                INVALID_REQUEST,
                "Invalid Request: a JSON-RPC message needs a method (a request or notification), "
                "or a result or an error (a response)",
            )
        rid = message.get("id", False)
        if has_result == has_error or not (rid is None or _valid_id(rid)):
            return _transport_error(
                400, INVALID_REQUEST, "Invalid Request: a JSON-RPC response carries an id and one of result or error"
            )
        if headers.get("mcp-protocol-version") in MODERN_PROTOCOL_VERSIONS:
            return _transport_error(
                400,
                INVALID_REQUEST,
                "Invalid Request: in the 2026-07-28 protocol clients send no responses (servers send no requests)",
            )
        # Up to 2025-11-25 a client may POST its responses, and they get 202. Only a kept call's requests await
        # one (resumption.py); any other is accepted and dropped.
        if self._gets is not None and isinstance(rid, str):
            return self._gets.keep_answer(message, headers, peer)
        return None

    def _batch(
        self, messages: list[Any], headers: Mapping[str, str], http_request_id: str | None, peer: str | None
    ) -> HttpReply | Pending:
        """A JSON-RPC batch (2025-03-26 and older): each message served in order as if posted alone, but for any
        `tools/call` after the first, which gets an error; the replies to its requests as one JSON array, 202 if it
        held none. A refusal of the caller answers the whole POST."""
        version = headers.get("mcp-protocol-version", DEFAULT_NEGOTIATED_VERSION)
        if version not in BATCH_VERSIONS:
            return _transport_error(
                400,
                INVALID_REQUEST,
                f"Invalid Request: MCP {version} has no JSON-RPC batches (2025-06-18 removed them); "
                "send one message per request",
            )
        if not messages:
            return _transport_error(400, INVALID_REQUEST, "Invalid Request: the batch is empty")
        if len(messages) > self._max_batch:
            return _transport_error(
                400, INVALID_REQUEST, f"Invalid Request: a batch may hold at most {self._max_batch} messages"
            )
        if sum(1 for message in messages if isinstance(message, dict) and "method" not in message) > 1:
            # Each answer kept is a write: one a POST, as the protocols that answer kept calls send them.
            return _transport_error(400, INVALID_REQUEST, "Invalid Request: a batch may hold one response")
        first_call = next((i for i, message in enumerate(messages) if _tool_call(message)), len(messages))

        def answer_to(position: int, message: Any) -> Answer:
            if position > first_call and _tool_call(message):
                # Each call may take the work one request is allowed: a second would double what one POST costs.
                return HttpReply(200, error_body(message["id"], INVALID_REQUEST, ONE_CALL_PER_BATCH))
            return self._message(message, headers, http_request_id, peer, batched=True)

        answers = (answer_to(position, message) for position, message in enumerate(messages))
        replies: list[HttpReply] = []
        for answer in answers:
            if answer is None or isinstance(answer, HttpReply):
                if _refuses_caller(answer):
                    return answer
                replies += [answer] if answer is not None else []
                continue
            return self._finish_batch(replies, answer, answers)
        return _batch_reply(replies)

    async def _finish_batch(self, replies: list[HttpReply], pending: Pending, rest: Iterator[Answer]) -> HttpReply:
        """`_batch` from the first message that needs the event loop on; the rest are read one by one, as there."""
        for answer in chain([pending], rest):
            reply = answer if answer is None or isinstance(answer, HttpReply) else await answer
            if _refuses_caller(reply):
                return reply
            if reply is not None:
                replies.append(reply)
        return _batch_reply(replies)

    def _request(
        self,
        message: dict[str, Any],
        headers: Mapping[str, str],
        http_request_id: str | None,
        peer: str | None,
        *,
        batched: bool = False,
        live: LiveStream | None = None,
        resuming: Resuming | None = None,
        caller: Caller | None = None,
    ) -> HttpReply | Pending:
        """`caller`: who sends it, already admitted (a resumed call); else the request's credentials decide."""
        rid = message.get("id")
        method = message.get("method")
        params = message.get("params")
        if not isinstance(method, str):
            return _transport_error(400, INVALID_REQUEST, "Invalid Request: the method must be a string")
        if not _valid_id(rid):
            return _transport_error(400, INVALID_REQUEST, "Invalid Request: a request's id is a string or an integer")
        if params is not None and not isinstance(params, dict):
            return HttpReply(400, error_body(rid, INVALID_PARAMS, "params must be an object"))
        if params is not None and (problem := input_responses_problem(params.get("inputResponses"))) is not None:
            return HttpReply(200, error_body(rid, INVALID_PARAMS, problem))
        if batched and method == "initialize":
            # 2025-03-26, lifecycle: the initialize request must not be part of a batch.
            return HttpReply(200, error_body(rid, INVALID_REQUEST, "Invalid Request: initialize cannot be batched"))

        events = None
        if method == "tools/call" and not batched and (live is not None or accepts_event_stream(headers)):
            events = CallEvents(live)
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
        if modern:
            verdict = classify_inbound_request(message, headers=headers)
            if isinstance(verdict, InboundLadderRejection):
                return self._reply_error(rid, verdict.code, verdict.message, verdict.data, True)
            if method in TASK_METHODS and not _names_task(params, headers):
                message_ = "mcp-name header does not match the request body's 'taskId' parameter"
                return self._reply_error(rid, HEADER_MISMATCH, message_, None, True)
            if method == "tools/call" and params is not None:
                mismatch = self._param_header_mismatch(params, headers)
                if mismatch is not None:
                    return self._reply_error(rid, mismatch.code, mismatch.message, mismatch.data, True)
            exchange = _Exchange(
                rid,
                method,
                params,
                headers,
                http_request_id,
                modern=True,
                version=verdict.protocol_version,
                client_info=verdict.client_info,
                client_capabilities=verdict.client_capabilities,
                peer=peer,
                events=events,
            )
        else:
            version = header_version or DEFAULT_NEGOTIATED_VERSION
            session = None
            # A call's id rides in its stream's event ids: one too long for a header is not resumed (its client
            # gets `input_unsupported` if the tool asks).
            resumable = events is not None and len(json.dumps(rid)) <= MAX_RESUMABLE_ID_LENGTH
            needs_session = resumable or method in SESSION_METHODS or method in READ_BY_SESSION
            if self._streams is not None and needs_session and version == RESUMING_VERSION:
                session = self._streams.session(headers.get("mcp-session-id"))
            exchange = _Exchange(
                rid,
                method,
                params,
                headers,
                http_request_id,
                modern=False,
                version=version,
                peer=peer,
                events=events,
                session=session,
                resumable=resumable and session is not None,
                resuming=resuming if session is not None else None,
            )

        if caller is not None:
            return self._answer(exchange, caller)
        if self._gate is not None and self._gate.needs_verification(headers):
            return self._verify_then_answer(exchange, message)
        admitted = self._caller(headers, message)
        return admitted if isinstance(admitted, HttpReply) else self._answer(exchange, admitted)

    def _caller(self, headers: Mapping[str, str], message: Mapping[str, Any]) -> Caller | HttpReply:
        """Who sends `message`, from the request's credentials (a host token, else an OAuth token when sign-in is
        on), or the refusal of those credentials. Blocks while a token's issuer keys are fetched."""
        rid = message.get("id")
        params = message.get("params")
        host = self._host.admit(headers, str(message.get("method")), params if isinstance(params, dict) else None)
        if isinstance(host, HostRefusal):
            return HttpReply(
                host.status, error_body(rid, INVALID_REQUEST, host.message), (*JSON_HEADERS, *host.headers)
            )
        if host is not None:
            return Caller(host_subject=host.principal_subject)
        if self._gate is None:
            return Caller()
        admission = self._gate.check(headers, message)
        if isinstance(admission, Refused):
            return _challenge(rid, admission)
        return Caller(subject=admission.subject)

    async def _identify(self, headers: Mapping[str, str], message: Mapping[str, Any]) -> Caller | HttpReply:
        """`_caller`, in a worker thread when a token is to be verified."""
        if self._gate is not None and self._gate.needs_verification(headers):
            return await anyio.to_thread.run_sync(self._caller, headers, message)
        return self._caller(headers, message)

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

    async def _verify_then_answer(self, exchange: _Exchange, message: dict[str, Any]) -> HttpReply:
        # In a worker thread: fetching the issuer's keys blocks, and may go to this very server.
        caller = await anyio.to_thread.run_sync(self._caller, exchange.headers, message)
        if isinstance(caller, HttpReply):
            return caller
        reply = self._answer(exchange, caller)
        return reply if isinstance(reply, HttpReply) else await reply

    def _answer(self, exchange: _Exchange, caller: Caller) -> HttpReply | Pending:
        """After every guard and the sign-in gate (`caller`: whom they admitted): a cached answer, else the SDK's
        kernel."""
        if caller != exchange.caller:
            exchange = replace(exchange, caller=caller)
        key = None
        if self._answers is not None:
            key = self._answers.key(exchange.method, exchange.params, version=exchange.version, modern=exchange.modern)
            key = listing_key(key, exchange.method, exchange.session)
            if (
                key is not None
                and exchange.method == "resources/read"
                and self._fixed_resource is not None
                and not self._fixed_resource((exchange.params or {}).get("uri"))
            ):
                key = None
            if key is not None:
                cached = self._answers.reply(key, exchange.rid)
                if cached is not None:
                    return self._with_session(exchange, HttpReply(200, cached))
        return self._serve(exchange, key)

    def _serve(self, exchange: _Exchange, key: Key | None) -> HttpReply | Pending:
        connection = envelope_connection(exchange.version, exchange.client_info, exchange.client_capabilities)
        # What the client declared, for a request answered by it (a call's stream may carry input requests too).
        session = exchange.session if exchange.resumable or exchange.method in READ_BY_SESSION else None
        dctx = SingleExchangeContext(
            transport=TransportContext(kind="streamable-http", can_send_request=False, headers=exchange.headers),
            request_id=exchange.rid,
            message_metadata=ServerMessageMetadata(
                request_context=RequestInfo(
                    exchange.headers,
                    exchange.http_request_id,
                    subject=exchange.caller.subject,
                    host_subject=exchange.caller.host_subject,
                    locate_source=DeferredAddress(exchange.peer, exchange.headers, self._proxy_hops),
                    events=exchange.events,
                    session_capabilities=session.capabilities if session is not None else None,
                    session_client=session.client_name if session is not None else None,
                    resumable_stream=exchange.resumable,
                    session_id=exchange.session.nonce if exchange.session is not None else None,
                    admitted=exchange.resuming is not None,
                )
            ),
        )
        params = exchange.params
        if (
            self._inline_tools is not None
            and exchange.method == "tools/call"
            and params is not None
            and self._inline_tools(params.get("name"))
        ):
            runner = ServerRunner(self._server, connection, self._lifespan_state)
            try:
                result = run_inline(runner.on_request(dctx, exchange.method, params), connection)
            except Suspended as suspended:  # it waited after all: the loop finishes it
                return self._finish(exchange, key, suspended.remainder)
            except Exception as exc:  # noqa: BLE001 - mapped to its JSON-RPC error, and logged if unexpected
                return self._failed(exchange, exc)
            return self._succeeded(exchange, key, result)
        work = serve_one(
            self._server, dctx, exchange.method, params, connection=connection, lifespan_state=self._lifespan_state
        )
        return self._finish(exchange, key, work)

    async def _finish(self, exchange: _Exchange, key: Key | None, work: Awaitable[dict[str, Any]]) -> HttpReply:
        try:
            result = await work
        except Exception as exc:  # noqa: BLE001 - mapped to its JSON-RPC error, and logged if unexpected
            return self._failed(exchange, exc)
        return self._succeeded(exchange, key, result)

    def _failed(self, exchange: _Exchange, exc: Exception) -> HttpReply:
        rid, modern = exchange.rid, exchange.modern
        if isinstance(exc, SuspendCall):
            return self._suspended(exchange, exc.result, exc.caller)
        if isinstance(exc, MCPError):
            reply = self._reply_error(rid, exc.error.code, exc.error.message, exc.error.data, modern)
            seconds = exc.error.data.get("retryAfter") if isinstance(exc.error.data, dict) else None
            if isinstance(seconds, int) and not isinstance(seconds, bool) and seconds >= 0:
                # A refusal that says when to try again (`rate_limited`) says it in HTTP's terms too, as tools do.
                return HttpReply(reply.status, reply.body, (*reply.headers, ("retry-after", str(seconds))))
            return reply
        if isinstance(exc, ValidationError):
            return self._reply_error(rid, INVALID_PARAMS, "Invalid request parameters", None, modern)
        if isinstance(exc, SecretUnavailable):
            # REQUEST_STATE_SECRET_ARN could not be read (the one key read while a request is served): the server's
            # fault, passing; the key is read again by the next call that needs it.
            logger.error("input requests cannot be signed or checked: %s", exc)
            body = error_body(rid, INTERNAL_ERROR, KEY_UNAVAILABLE)
            return HttpReply(503, body, (*JSON_HEADERS, ("retry-after", "1")))
        logger.error("unhandled error while serving %s", exchange.method, exc_info=exc)
        return self._reply_error(rid, INTERNAL_ERROR, "Internal server error", None, modern)

    def _suspended(self, exchange: _Exchange, result: dict[str, Any], caller: str) -> HttpReply:
        """A resumable call whose handler asked for input: its requests on a stream that ends there."""
        assert self._streams is not None
        assert exchange.session is not None
        try:
            body = self._streams.suspend(
                exchange.rid,
                exchange.params or {},
                result,
                exchange.session,
                exchange.resuming,
                exchange.caller.owner,
                caller,
            )
        except QuotaFull as exc:
            full = QuotaExceeded("calls waiting for your answers", exc.limit, exc.frees_at, "Answering one of them")
            wire = error_wire(full.code, full.message, details=full.details)
            return HttpReply(200, json.dumps({"jsonrpc": "2.0", "id": exchange.rid, "result": wire}).encode())
        except ItemOverBudget as exc:
            logger.warning("a call that asked for input is too large to keep: %s", exc)
            advice = "Call the tool again with smaller arguments and _meta, or answer with less."
            too_large = TooLarge("call, with what it was asked and answered,", exc.size, exc.budget, advice)
            wire = error_wire(too_large.code, too_large.message, details=too_large.details)
            return HttpReply(200, json.dumps({"jsonrpc": "2.0", "id": exchange.rid, "result": wire}).encode())
        except SecretUnavailable as exc:
            logger.error("a call that asked for input cannot be signed: %s", exc)
            return HttpReply(
                503, error_body(exchange.rid, INTERNAL_ERROR, KEY_UNAVAILABLE), (*JSON_HEADERS, ("retry-after", "1"))
            )
        except TooManyRequests as exc:
            logger.error("tool %s: %s", (exchange.params or {}).get("name"), exc)
            return HttpReply(200, error_body(exchange.rid, INTERNAL_ERROR, f"The tool failed: {exc}"))
        except StoreError as exc:
            logger.error("a call that asked for input could not be kept: %s", exc)
            message = "The server could not keep this call while it waits for your answers; try again shortly"
            return HttpReply(200, error_body(exchange.rid, INTERNAL_ERROR, message))
        notifications = b"".join(exchange.events.frames) if exchange.events is not None else b""
        # The priming event comes first (it carries the id the client resumes from), then what the tool sent.
        priming, _, requests = body.partition(b"\n\n")
        return HttpReply(200, priming + b"\n\n" + notifications + requests, EVENT_STREAM_HEADERS)

    def _with_session(self, exchange: _Exchange, reply: HttpReply) -> HttpReply:
        """The answer to a 2025-11-25 `initialize`, with a session that keeps the client's capabilities when calls
        can resume (resumption.py): the one place a stateless server learns them in that revision."""
        if (
            self._streams is None
            or exchange.method != "initialize"
            or exchange.modern
            or reply.status != 200
            or (exchange.params or {}).get("protocolVersion") != RESUMING_VERSION
        ):
            return reply
        params = exchange.params or {}
        try:
            session = self._streams.issue_session(params.get("capabilities"), params.get("clientInfo"))
        except SecretUnavailable as exc:
            logger.error("no session issued (its key is unreadable): %s", exc)
            return reply
        return replace(reply, headers=(*reply.headers, ("mcp-session-id", session)))

    def _succeeded(self, exchange: _Exchange, key: Key | None, result: dict[str, Any]) -> HttpReply:
        rid = exchange.rid
        try:
            encoded = encode(result)
            body = reply_body(rid, encoded)
        except UnicodeEncodeError:  # a lone surrogate made by a tool: escaped, it is still valid JSON
            reply = {"jsonrpc": "2.0", "id": rid, "result": result}
            return HttpReply(200, json.dumps(reply, separators=(",", ":")).encode())
        if key is not None and self._answers is not None:
            self._answers.keep(key, encoded)
        if exchange.method == "initialize":
            return self._with_session(exchange, HttpReply(200, body))
        if exchange.method == "tools/call":
            retry_after = _retry_after(result)
            if retry_after is not None:
                return HttpReply(200, body, (*JSON_HEADERS, ("retry-after", retry_after)))
        if exchange.events is not None and exchange.events.frames:
            # A buffered stream: the notifications the tool sent, then the response.
            return HttpReply(200, b"".join(exchange.events.frames) + sse_frame(body), EVENT_STREAM_HEADERS)
        return HttpReply(200, body)

    @staticmethod
    def _reply_error(rid: Any, code: int, message: str, data: Any, modern: bool) -> HttpReply:
        # The 2026-07-28 transport maps error codes to HTTP statuses; the handshake era answers 200.
        status = ERROR_CODE_HTTP_STATUS.get(code, 200) if modern else 200
        return HttpReply(status, error_body(rid, code, message, data))


def _tool_call(message: Any) -> TypeGuard[dict[str, Any]]:
    """Whether a batch's message is a `tools/call` request: the one kind whose work depends on its input."""
    return (
        isinstance(message, dict)
        and message.get("jsonrpc") == "2.0"
        and message.get("method") == "tools/call"
        and _valid_id(message.get("id"))
    )


def _refuses_caller(answer: Answer) -> TypeGuard[HttpReply]:
    """A refusal of who is calling (401/403: a sign-in challenge, a host token refused), not of one message: the
    answer to the whole POST, batch or not, as HTTP authentication is the request's."""
    return isinstance(answer, HttpReply) and answer.status in (401, 403)


def _batch_reply(replies: list[HttpReply]) -> HttpReply:
    """The replies to a batch's requests as one JSON array (JSON-RPC 2.0, 6); 202 when it held none."""
    bodies = [reply.body for reply in replies if reply.body]
    if not bodies:
        return accepted()
    return HttpReply(200, b"[" + b",".join(bodies) + b"]")


def _names_task(params: Mapping[str, Any] | None, headers: Mapping[str, str]) -> bool:
    """Whether a tasks/* request's `Mcp-Name` header names the task its body names (or the body names none)."""
    task_id = params.get("taskId") if isinstance(params, Mapping) else None
    return not isinstance(task_id, str) or decode_header_value(headers.get("mcp-name")) == task_id
