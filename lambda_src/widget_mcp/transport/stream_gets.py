"""The requests resumable streams add to `/mcp` (resumption.py, subscriptions.py): a client's answers to a kept
call's requests (POSTed JSON-RPC responses), and the GETs that resume a kept call's stream or poll a session's
standalone one. Every other GET is the endpoint's 405."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

import anyio.to_thread
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST

from widget_mcp.storage.documents import Document, StoreError, VersionConflict
from widget_mcp.toolkit.errors import RateLimited
from widget_mcp.toolkit.limits import CallLimiter
from widget_mcp.toolkit.ownership import caller_key
from widget_mcp.toolkit.principal import resolve_principal
from widget_mcp.transport.call_events import EVENT_STREAM_HEADERS, sse_frame
from widget_mcp.transport.client_address import DeferredAddress
from widget_mcp.transport.guards import media_type
from widget_mcp.transport.replies import JSON_HEADERS, HttpReply, Pending, accepted, error_body
from widget_mcp.transport.resumption import RESUMING_VERSION, Resuming, Streams
from widget_mcp.transport.stream_ids import EventId, ListenEvent, Session
from widget_mcp.transport.subscriptions import Subscriptions

if TYPE_CHECKING:
    from widget_mcp.transport.caller import Caller

logger = logging.getLogger(__name__)

# Who sends a request (the endpoint's sign-in and host-token checks), or the refusal to answer it with.
Identify = Callable[[Mapping[str, str], Mapping[str, Any]], Awaitable["Caller | HttpReply"]]


class ServeCall(Protocol):
    """The endpoint's way in for one JSON-RPC request, every check included: how a resumed call runs again."""

    def __call__(
        self,
        message: dict[str, Any],
        headers: Mapping[str, str],
        http_request_id: str | None,
        peer: str | None,
        *,
        resuming: Resuming | None = None,
        caller: Caller | None = None,
    ) -> HttpReply | Pending: ...


class StreamGets:
    """`limiter`: the per-caller rate limit an answer counts against before it is read or kept; `proxy_hops`: how
    the caller's address is found (client_address.py), for a caller without identity."""

    def __init__(
        self,
        streams: Streams,
        subscriptions: Subscriptions | None,
        identify: Identify,
        serve_call: ServeCall,
        *,
        limiter: CallLimiter | None = None,
        proxy_hops: int = 0,
        trust_hints: bool = True,
    ) -> None:
        self._streams = streams
        self._subscriptions = subscriptions
        self._identify = identify
        self._serve_call = serve_call
        self._limiter = limiter
        self._proxy_hops = proxy_hops
        self._trust_hints = trust_hints  # a kept call's `_meta` hints name its caller only without sign-in

    async def keep_answer(self, message: dict[str, Any], headers: Mapping[str, str], peer: str | None) -> HttpReply:
        """A client's answer to a kept call's request (a JSON-RPC response whose id is a string): kept, 202. It
        counts against its caller's rate limit first (429 past it, nothing read or kept)."""
        streams = self._streams
        session = streams.session(headers.get("mcp-session-id"))
        if session is None:
            return accepted()  # no call of a session's awaits it
        caller = await self._identify(headers, message)
        if isinstance(caller, HttpReply):
            return caller  # a token refused: the client renews it and answers again
        try:
            await self._admit(caller, None, headers, peer)
            await anyio.to_thread.run_sync(streams.keep_answer, message, session, caller.owner)
        except RateLimited as exc:
            body = error_body(None, INVALID_REQUEST, exc.message, {"error": exc.code, "retryAfter": exc.retry_after})
            return HttpReply(429, body, (*JSON_HEADERS, ("retry-after", str(exc.retry_after))))
        except StoreError as exc:
            logger.error("a client's answer to an input request could not be kept: %s", exc)
            return HttpReply(503, b"", (("retry-after", "1"),))
        return accepted()

    async def _admit(
        self, caller: Caller, meta: Mapping[str, Any] | None, headers: Mapping[str, str], peer: str | None
    ) -> None:
        """Count a request against its caller's rate limit (RateLimited past it), as the tool call it serves would
        be: the same principal (`meta`: the call's hints), else the caller's address."""
        if self._limiter is None:
            return
        principal = resolve_principal(meta, caller.subject, caller.host_subject, trust_hints=self._trust_hints)
        source = DeferredAddress(peer, headers, self._proxy_hops)() if principal.is_anonymous else None
        await anyio.to_thread.run_sync(self._limiter.admit, caller_key(principal, source))

    def asked(self, headers: Mapping[str, str]) -> tuple[Session | None, EventId | ListenEvent] | None:
        """What a GET asks for, if it is something this endpoint serves: a kept call's stream (a `Last-Event-ID`
        this server signed), or a session's standalone stream; None for every other GET (405). Costs no read."""
        streams = self._streams
        session = streams.session(headers.get("mcp-session-id"))
        last = headers.get("last-event-id")
        event = streams.event(last)
        if event is not None:
            return (session, event) if not event.ended else None  # a stream that brought its response is over
        if self._subscriptions is None or session is None:
            return None
        if last is None:  # a new stream: every change left since the session subscribed
            return session, ListenEvent(session.nonce, 0)
        listened = streams.listening(last)
        return (session, listened) if listened is not None and listened.session == session.nonce else None

    async def get(
        self,
        session: Session | None,
        asked: EventId | ListenEvent,
        headers: Mapping[str, str],
        http_request_id: str | None,
        peer: str | None,
    ) -> HttpReply:
        """GET: the next part of a kept call's stream, or of a session's standalone stream."""
        streams = self._streams
        if isinstance(asked, ListenEvent):
            assert self._subscriptions is not None
            # A session's changes are its verified caller's: a stranger holding the session id hears none of them.
            caller = await self._identify(headers, {"jsonrpc": "2.0", "id": None, "method": "resources/subscribe"})
            if isinstance(caller, HttpReply):
                return caller
            return await self._listen(streams, self._subscriptions, asked, caller.owner)
        try:
            return await self._resume(streams, asked, session, headers, http_request_id, peer)
        except StoreError as exc:  # the client polls again, as it would while waiting
            logger.error("a kept call could not be resumed: %s", exc)
            return HttpReply(200, streams.priming(replace(asked, poll=asked.poll + 1)), EVENT_STREAM_HEADERS)

    async def _listen(
        self, streams: Streams, subscriptions: Subscriptions, since: ListenEvent, owner: str | None
    ) -> HttpReply:
        """A session's standalone stream, polled: the resources changed since the last poll, then the end."""
        try:
            changed, cursor = await anyio.to_thread.run_sync(
                subscriptions.changes, since.session, owner, since.since_ms
            )
        except StoreError as exc:
            logger.error("a session's resource changes could not be read: %s", exc)
            changed, cursor = [], since.since_ms
        frames = [streams.listen_priming(replace(since, since_ms=cursor))]
        for uri in changed:
            notification = {"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}}
            frames.append(sse_frame(json.dumps(notification, separators=(",", ":")).encode()))
        return HttpReply(200, b"".join(frames), EVENT_STREAM_HEADERS)

    async def _resume(
        self,
        streams: Streams,
        event: EventId,
        session: Session | None,
        headers: Mapping[str, str],
        http_request_id: str | None,
        peer: str | None,
    ) -> HttpReply:
        """GET with a kept call's `Last-Event-ID`: the next part of its stream (resumption.py)."""

        def stream(body: bytes) -> HttpReply:
            return HttpReply(200, body, EVENT_STREAM_HEADERS)

        def poll_again() -> HttpReply:
            return stream(streams.priming(replace(event, poll=event.poll + 1)))

        def gone() -> HttpReply:
            text = (
                "This call waited longer for its answers than the server keeps it, or belongs to another session or "
                "user: call the tool again"
            )
            return stream(streams.ending(event, sse_frame(error_body(event.rid, INVALID_REQUEST, text))))

        doc = await anyio.to_thread.run_sync(streams.load, event, session)
        if doc is None:
            return gone()
        call = {"jsonrpc": "2.0", "id": event.rid, "method": "tools/call", "params": doc.body["call"]}
        # The caller is checked before the call is shown, claimed or run: a refused token leaves it as it was.
        caller = await self._identify(headers, call)
        if isinstance(caller, HttpReply):
            return caller if caller.status != 200 else stream(streams.ending(event, sse_frame(caller.body)))
        if caller.owner != doc.body.get("owner"):
            return gone()
        state = doc.body["state"]
        if state == "done":
            kept = doc.body.get("reply")
            if kept is None:
                kept_error = error_body(event.rid, INTERNAL_ERROR, "This call's response was too large to send again")
                return stream(streams.ending(event, sse_frame(kept_error)))
            return stream(kept.encode())
        if state == "running" and streams.running(doc):
            return poll_again()
        if streams.lapsed(doc):
            return await self._lapsed(streams, doc, event)
        if event.round != doc.body["round"]:
            # The client missed the reply that carried this round's requests: they come again.
            return stream(streams.requests(doc.doc_id, doc.body["round"], event.rid, doc.body["requests"]))
        answers = await anyio.to_thread.run_sync(streams.answers, doc)
        if answers is None:
            return poll_again()
        try:  # counted before the claim writes anything: the rerun is this caller's tool call
            await self._admit(caller, doc.body["call"].get("_meta"), headers, peer)
        except RateLimited:
            return poll_again()  # past its limit the call keeps waiting, as it was, until the window ends
        claimed = await anyio.to_thread.run_sync(streams.claim, doc)
        if claimed is None:
            return poll_again()
        failed = next((a["error"] for a in answers.values() if "result" not in a), None)
        if failed is not None:
            text = failed.get("message") if isinstance(failed, dict) else None
            reason = f"The client could not answer the tool's request: {text or 'no reason given'}"
            body = streams.ending(event, sse_frame(error_body(event.rid, INVALID_PARAMS, reason)))
            await self._finish(streams, claimed, body)
            return stream(body)
        params = {
            **doc.body["call"],
            "inputResponses": {key: answer["result"] for key, answer in answers.items()},
            "requestState": doc.body["requestState"],
        }
        message = {**call, "params": params}
        call_headers = {
            **headers,
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": RESUMING_VERSION,
        }
        resuming = Resuming(event, claimed)
        reply = self._serve_call(message, call_headers, http_request_id, peer, resuming=resuming, caller=caller)
        if not isinstance(reply, HttpReply):
            reply = await reply
        if resuming.suspended:
            return reply  # the next round's requests
        if reply.status != 200:
            # Refused before it ran (a transport check): the call waits to be resumed again, at once.
            await anyio.to_thread.run_sync(streams.release, claimed)
            return reply
        frames = (
            reply.body
            if media_type(dict(reply.headers), "content-type") == "text/event-stream"
            else sse_frame(reply.body)
        )
        body = streams.ending(event, frames)
        await self._finish(streams, claimed, body)
        return stream(body)

    @staticmethod
    async def _lapsed(streams: Streams, doc: Document, event: EventId) -> HttpReply:
        """A call whose run outlived its lease ends with an error, once: run again, it could apply its effects twice.
        Its holder, if only slow, still sends its own reply to the GET that claimed it."""
        text = (
            "This call's run did not finish in time, so whether it took effect is unknown: check, then call the tool "
            "again if it did not"
        )
        body = streams.ending(event, sse_frame(error_body(event.rid, INTERNAL_ERROR, text)))
        try:
            await anyio.to_thread.run_sync(streams.finish, doc, body)
        except VersionConflict:  # its holder finished after all: the next GET gets its reply
            return HttpReply(200, streams.priming(replace(event, poll=event.poll + 1)), EVENT_STREAM_HEADERS)
        return HttpReply(200, body, EVENT_STREAM_HEADERS)

    @staticmethod
    async def _finish(streams: Streams, claimed: Document, body: bytes) -> None:
        """Keep the reply that ends the call. The reply goes out even if that fails (logged): the call ran, and
        answering a poll instead would have it run again. (A client that loses this reply too and resumes once the
        claim has lapsed gets the lapsed call's error: it is never run again.)"""
        try:
            await anyio.to_thread.run_sync(streams.finish, claimed, body)
        except StoreError as exc:
            logger.error("a resumed call's response could not be kept: %s", exc)
