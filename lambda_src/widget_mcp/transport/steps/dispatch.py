"""Dispatch: an identified request to its answer. A read-only method's from the answer cache when it holds it;
a tool that never waits run inline by the SDK's kernel, without an event loop (inline_call.py); everything else by
`serve_one` on the loop. A resumable call that asked for input is kept (resumption.py), and a 2025-11-25
`initialize` gets the session that keeps its client's capabilities."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from mcp.server.lowlevel.server import Server
from mcp.server.runner import ServerRunner, serve_one
from mcp.shared.message import ServerMessageMetadata
from mcp.shared.transport_context import TransportContext

from widget_mcp.secrets import SecretUnavailable
from widget_mcp.transport.answer_cache import AnswerCache, Key, encode, reply_body
from widget_mcp.transport.client_address import DeferredAddress
from widget_mcp.transport.dispatch_context import SingleExchangeContext, envelope_connection
from widget_mcp.transport.inline_call import Suspended, run_inline
from widget_mcp.transport.replies import HttpReply, Pending
from widget_mcp.transport.request_info import RequestInfo
from widget_mcp.transport.resumption import RESUMING_VERSION, Streams, SuspendCall
from widget_mcp.transport.session_listing import READ_BY_SESSION, listing_key
from widget_mcp.transport.steps import reply
from widget_mcp.transport.steps.exchange import Exchange
from widget_mcp.transport.steps.log import logger


class Dispatch:
    """`answers`: the answer cache, when on; `fixed_resource(uri)`: whether `resources/read` of `uri` may be
    answered from it; `inline_tools(name)`: whether a call of that tool runs to its end without ever waiting;
    `streams`: resumable 2025-11-25 calls, when on; `proxy_hops`: how the caller's address is found."""

    __slots__ = ("_answers", "_fixed_resource", "_inline_tools", "_lifespan", "_proxy_hops", "_server", "_streams")

    def __init__(
        self,
        server: Server[Any],
        *,
        answers: AnswerCache | None,
        fixed_resource: Callable[[object], bool] | None,
        inline_tools: Callable[[object], bool] | None,
        streams: Streams | None,
        proxy_hops: int,
    ) -> None:
        self._server = server
        self._answers = answers
        self._fixed_resource = fixed_resource
        self._inline_tools = inline_tools
        self._streams = streams
        self._proxy_hops = proxy_hops
        # The server's lifespan is never entered: nothing here outlives a request.
        self._lifespan: dict[str, Any] = {}

    def forget_answers(self) -> None:
        if self._answers is not None:
            self._answers.clear()

    def answer(self, exchange: Exchange) -> HttpReply | Pending:
        """After every guard and the sign-in gate (the exchange's caller: whom they admitted): a cached answer, else
        the SDK's kernel."""
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

    def _serve(self, exchange: Exchange, key: Key | None) -> HttpReply | Pending:
        caller = exchange.caller
        assert caller is not None
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
                    subject=caller.subject,
                    host_subject=caller.host_subject,
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
            runner = ServerRunner(self._server, connection, self._lifespan)
            try:
                result = run_inline(runner.on_request(dctx, exchange.method, params), connection)
            except Suspended as suspended:  # it waited after all: the loop finishes it
                return self._finish(exchange, key, suspended.remainder)
            except Exception as exc:  # noqa: BLE001 - mapped to its JSON-RPC error, and logged if unexpected
                return self._failed(exchange, exc)
            return self._succeeded(exchange, key, result)
        work = serve_one(
            self._server, dctx, exchange.method, params, connection=connection, lifespan_state=self._lifespan
        )
        return self._finish(exchange, key, work)

    async def _finish(self, exchange: Exchange, key: Key | None, work: Awaitable[dict[str, Any]]) -> HttpReply:
        try:
            result = await work
        except Exception as exc:  # noqa: BLE001 - mapped to its JSON-RPC error, and logged if unexpected
            return self._failed(exchange, exc)
        return self._succeeded(exchange, key, result)

    def _failed(self, exchange: Exchange, exc: Exception) -> HttpReply:
        if isinstance(exc, SuspendCall):
            return self._suspended(exchange, exc.result, exc.caller)
        return reply.failure(exchange, exc)

    def _suspended(self, exchange: Exchange, result: dict[str, Any], caller: str) -> HttpReply:
        """A resumable call whose handler asked for input: its requests on a stream that ends there."""
        assert self._streams is not None
        assert exchange.session is not None
        assert exchange.caller is not None
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
        except reply.UNKEPT as exc:
            return reply.unkept(exchange, exc)
        return reply.kept_stream(exchange, body)

    def _with_session(self, exchange: Exchange, answer: HttpReply) -> HttpReply:
        """The answer to a 2025-11-25 `initialize`, with a session that keeps the client's capabilities when calls
        can resume (resumption.py): the one place a stateless server learns them in that revision."""
        if (
            self._streams is None
            or exchange.method != "initialize"
            or exchange.modern
            or answer.status != 200
            or (exchange.params or {}).get("protocolVersion") != RESUMING_VERSION
        ):
            return answer
        params = exchange.params or {}
        try:
            session = self._streams.issue_session(params.get("capabilities"), params.get("clientInfo"))
        except SecretUnavailable as exc:
            logger.error("no session issued (its key is unreadable): %s", exc)
            return answer
        return replace(answer, headers=(*answer.headers, ("mcp-session-id", session)))

    def _succeeded(self, exchange: Exchange, key: Key | None, result: dict[str, Any]) -> HttpReply:
        rid = exchange.rid
        try:
            encoded = encode(result)
            body = reply_body(rid, encoded)
        except UnicodeEncodeError:  # a lone surrogate made by a tool: escaped, it is still valid JSON
            return reply.escaped_result(rid, result)
        if key is not None and self._answers is not None:
            self._answers.keep(key, encoded)
        if exchange.method == "initialize":
            return self._with_session(exchange, HttpReply(200, body))
        return reply.result_reply(exchange, body, result)
