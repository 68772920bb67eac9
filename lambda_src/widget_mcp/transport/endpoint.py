"""The MCP endpoint as a pure function of (method, headers, body): shared by Lambda, uvicorn and tests.

Every POST is one self-contained JSON-RPC exchange served by the SDK's single-exchange kernel
(`serve_one`) with a fresh per-request `Connection`. Nothing lives between requests, so there is no
session manager and no lifespan to re-enter on warm Lambda invocations. Both protocol eras are served:
the 2025-11-25 handshake (answered statelessly, like the SDK's stateless mode) and the 2026-07-28
per-request envelope.

A request goes through four steps (steps/): screen (the refusals that need no caller), identify (the caller and
the session), dispatch (a cached answer, the MCP server, the streams of resumed calls) and reply (the HTTP reply,
readable by a listed browser origin). This module composes them.

Answers to the read-only methods (initialize, server/discover, ping, the lists, template reads) are replayed
from the SDK's own earlier answers (answer_cache.py), after every guard and the sign-in gate; `begin` hands them
back without an event loop.

A `tools/call` of a tool that never waits (a sync tool run inline, as on Lambda) is served by the same kernel
(`ServerRunner.on_request`: the same validation, handler and result shaping as `serve_one`) driven by hand
(inline_call.py), so `begin` answers it without an event loop too. Everything else runs `serve_one` on the loop.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import anyio.to_thread
from mcp.server.lowlevel.server import Server

from widget_mcp.auth.gate import SignInGate
from widget_mcp.toolkit.limits import CallLimiter
from widget_mcp.transport.answer_cache import AnswerCache
from widget_mcp.transport.call_events import EVENT_STREAM_HEADERS, LiveStream
from widget_mcp.transport.caller import Caller
from widget_mcp.transport.guards import CorsPolicy, HostAllowlist
from widget_mcp.transport.host_identity import HostIdentity
from widget_mcp.transport.replies import HttpReply, Pending, accepted
from widget_mcp.transport.request_info import RequestInfo as RequestInfo  # re-exported: imported from here before
from widget_mcp.transport.resumption import Resuming, Streams
from widget_mcp.transport.steps.batch import serve_batch
from widget_mcp.transport.steps.dispatch import Dispatch
from widget_mcp.transport.steps.exchange import Answer, Exchange
from widget_mcp.transport.steps.identify import Identification
from widget_mcp.transport.steps.reply import BrowserReadable
from widget_mcp.transport.steps.screen import DEFAULT_MAX_BATCH_MESSAGES, Screen
from widget_mcp.transport.stream_gets import StreamGets
from widget_mcp.transport.subscriptions import Subscriptions


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
        host = host_identity or HostIdentity(None, lambda _name: False, sign_in=gate is not None)
        cors = cors or CorsPolicy()
        browser = BrowserReadable(cors, host)
        self._readable = browser.readable
        self._screen = Screen(
            server,
            hosts=allowed_hosts,
            cors=cors,
            browser=browser,
            max_body=max_body_bytes,
            max_depth=max_json_depth,
            max_batch=max_batch_messages,
            # A browser client resumes a stream with GET (and headers that need a preflight).
            preflight=CorsPolicy.preflight_headers("GET, POST, OPTIONS") if streams else CorsPolicy.PREFLIGHT_HEADERS,
        )
        self._identification = Identification(gate, host, streams)
        self._dispatch = Dispatch(
            server,
            answers=AnswerCache() if answer_cache else None,
            fixed_resource=fixed_resource,
            inline_tools=inline_tools,
            streams=streams,
            proxy_hops=trusted_proxy_hops,
        )
        self._streams = streams
        self._gets = (
            StreamGets(
                streams,
                subscriptions,
                self._identification.identify,
                self._request,
                limiter=limiter,
                proxy_hops=trusted_proxy_hops,
                trust_hints=gate is None,
            )
            if streams is not None
            else None
        )

    def oversized(self, headers: Mapping[str, str]) -> HttpReply:
        """The 413 for a body over the limit, for adapters that refuse it before reading it all."""
        return self._readable(self._screen.too_large(), headers)

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
            return self._readable(reply, headers)
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
        return self._readable(HttpReply(200, b"", EVENT_STREAM_HEADERS), headers).headers

    def forget_answers(self) -> None:
        """Drop every cached answer (for a server whose lists or templates changed)."""
        self._dispatch.forget_answers()

    async def _browser_reply(self, pending: Pending, headers: Mapping[str, str]) -> HttpReply:
        return self._readable(await pending, headers)

    def _handle(
        self,
        method: str,
        headers: Mapping[str, str],
        body: bytes,
        request_id: str | None,
        peer: str | None,
        live: LiveStream | None = None,
    ) -> HttpReply | Pending:
        """Screen the HTTP request, then each JSON-RPC message it carries (`_message`); `begin` makes the reply
        readable by a listed browser origin."""
        gets = self._gets
        asked = gets.asked(headers) if method == "GET" and gets is not None else None
        stopped = self._screen.http(method, headers, asked is not None)
        if stopped is not None:
            return stopped
        if asked is not None:
            assert gets is not None
            return gets.get(*asked, headers, request_id, peer)  # a kept call's stream, or a session's
        decoded = self._screen.body(headers, body)
        if isinstance(decoded, HttpReply):
            return decoded
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
        refused = self._screen.message(message)
        if refused is not None:
            return refused
        if "method" not in message:
            return self._client_response(message, headers, peer)
        if "id" not in message:
            # A notification: nothing to act on in a stateless exchange, and it gets no JSON-RPC reply.
            return None
        return self._request(message, headers, http_request_id, peer, batched=batched, live=live)

    def _client_response(self, message: dict[str, Any], headers: Mapping[str, str], peer: str | None) -> Answer:
        """A client's response to a request of the server's. Up to 2025-11-25 a client may POST its responses, and
        they get 202. Only a kept call's requests await one (resumption.py); any other is accepted and dropped."""
        refused = self._screen.response(message, headers)
        if refused is not None:
            return refused
        if self._gets is not None and isinstance(message.get("id"), str):
            return self._gets.keep_answer(message, headers, peer)
        return None

    def _batch(
        self, messages: list[Any], headers: Mapping[str, str], http_request_id: str | None, peer: str | None
    ) -> HttpReply | Pending:
        refused = self._screen.batch(messages, headers)
        if refused is not None:
            return refused
        return serve_batch(
            messages, lambda message: self._message(message, headers, http_request_id, peer, batched=True)
        )

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
        """One JSON-RPC request through every step. `caller`: who sends it, already admitted (a resumed call); else
        the request's credentials decide."""
        era = self._screen.request(message, headers, batched)
        if isinstance(era, HttpReply):
            return era
        exchange = self._identification.exchange(
            message, headers, http_request_id, peer, era, batched=batched, live=live, resuming=resuming, caller=caller
        )
        if isinstance(exchange, HttpReply):
            return exchange
        if exchange.caller is None:
            return self._verify_then_answer(exchange, message)
        return self._dispatch.answer(exchange)

    async def _verify_then_answer(self, exchange: Exchange, message: dict[str, Any]) -> HttpReply:
        # In a worker thread: fetching the issuer's keys blocks, and may go to this very server.
        caller = await anyio.to_thread.run_sync(self._identification.caller, exchange.headers, message)
        if isinstance(caller, HttpReply):
            return caller
        reply = self._dispatch.answer(replace(exchange, caller=caller))
        return reply if isinstance(reply, HttpReply) else await reply
