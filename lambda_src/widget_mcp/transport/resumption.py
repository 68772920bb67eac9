"""Resumable streams: a tool's input requests (`call.ask`) for MCP 2025-11-25 clients, on a stateless endpoint.

A 2025-11-25 client gets the server's requests (elicitation/create, sampling/createMessage, roots/list) on the event
stream of its `tools/call` and POSTs each answer separately. Since 2025-11-25 (SEP-1699) the server may end that
stream after an event with an id, and the client resumes it with GET and `Last-Event-ID` once the `retry` it was
given has passed. So no stream has to stay open, and it holds on Lambda behind API Gateway's buffering HTTP API:

1. The call's handler asks: the reply is a priming event (an id and `retry`), then the requests, then the end. The
   call (its id, tool, arguments, `_meta`) and its signed requestState are kept in the state table (`stream`).
2. The client POSTs each answer, a JSON-RPC response whose id names the stream: kept (`stream_answer`), 202.
3. The client GETs with `Last-Event-ID`: once every answer is in, the call runs again with them, as a 2026-07-28
   input round does, and the stream ends with the call's response (or the next round's requests); until then, one
   more priming event and a longer `retry`. A GET that comes again gets the same response again.

The client's capabilities, declared once in `initialize`, ride in a signed `Mcp-Session-Id`. Event ids are signed
too, so a GET with an id this server did not issue costs no read. Off unless RESUMABLE_STREAMS is on: every other
GET is answered 405, as the public contract says.
"""

from __future__ import annotations

import contextlib
import json
import re
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from widget_mcp.storage.documents import AlreadyExists, Document, DocumentStore, ItemOverBudget, VersionConflict
from widget_mcp.transport.kept_budgets import (
    KEPT_KIND,
    MAX_KEPT_CALLS_PER_CALLER,
    MAX_REQUESTS_PER_ROUND,
    kept_answer,
    kept_meta,
)
from widget_mcp.transport.stream_ids import FIRST_RETRY_MS as FIRST_RETRY_MS
from widget_mcp.transport.stream_ids import LISTEN_RETRY_MS as LISTEN_RETRY_MS
from widget_mcp.transport.stream_ids import LONGEST_RETRY_MS as LONGEST_RETRY_MS
from widget_mcp.transport.stream_ids import EventId, Session, Signer, StreamIds
from widget_mcp.transport.stream_ids import ListenEvent as ListenEvent

# The handshake revision whose clients resume a POST's stream the server ended (SEP-1699).
RESUMING_VERSION = "2025-11-25"
STREAM, ANSWER = "stream", "stream_answer"
# A stream id as `suspend` makes them (16 random bytes, URL-safe base64): an answer naming any other is dropped unread.
_STREAM_ID = re.compile(r"[A-Za-z0-9_-]{22}")
MAX_RESUMABLE_ID_LENGTH = 200  # of the id as JSON (`json.dumps`, ASCII): what the event id carries


class TooManyRequests(ValueError):
    """A handler asked more questions in one round than a round keeps (a bug in the tool)."""

    def __init__(self, count: int) -> None:
        super().__init__(f"a tool asked {count} questions in one round; at most {MAX_REQUESTS_PER_ROUND}")
        self.count = count


class SuspendCall(Exception):
    """Raised by the server's `tools/call` handler when a resumable call's handler asked for input: the endpoint
    turns `result` (the `input_required` one a 2026-07-28 client would get) into the stream's requests. `caller`:
    whom per-caller limits count the call against (ownership.caller_key), whose quota of kept calls it takes."""

    def __init__(self, result: dict[str, Any], caller: str) -> None:
        super().__init__("input requested")
        self.result = result
        self.caller = caller


@dataclass(slots=True)
class Resuming:
    """The call a GET resumes, while it runs again: `suspended` once it asked for more input."""

    event: EventId
    doc: Document
    suspended: bool = False


def _answer_kind(round_: int) -> str:
    """Each round's answers are a kind of their own, so a round's are read without the earlier rounds'."""
    return f"{ANSWER}_{round_}"


def _owner(stream_id: str) -> str:
    return f"stream/{stream_id}"


def _frame(message: Mapping[str, Any]) -> bytes:
    return b"event: message\ndata: " + json.dumps(message, separators=(",", ":")).encode() + b"\n\n"


class Streams(StreamIds):
    """The kept calls and answers, with the sessions and event ids (stream_ids.py) signed by `signer` (the
    requestState key's HMAC)."""

    def __init__(
        self,
        store: DocumentStore,
        signer: Signer,
        *,
        ttl_seconds: int,
        work_seconds: int,
        clock: Callable[[], float] = time.time,
        kept_quota: int = MAX_KEPT_CALLS_PER_CALLER,
    ) -> None:
        super().__init__(signer)
        self._store = store
        self._kept_quota = kept_quota
        self._ttl = ttl_seconds
        self._work = work_seconds
        self._clock = clock

    def suspend(
        self,
        rid: str | int,
        params: Mapping[str, Any],
        result: Mapping[str, Any],
        session: Session,
        resuming: Resuming | None,
        owner: str | None = None,
        caller: str = "unknown",
    ) -> bytes:
        """Keep a call whose handler asked for input, and return the stream that carries its requests. A resumed
        call keeps its stream id, in its next round. `owner`: the verified caller (a signed-in user, a host's user)
        whose answers alone it takes; None when no one vouched for the caller. `caller`: whose quota of kept calls
        (QUOTA_WAITING_CALLS) a new one takes; QuotaFull past it, nothing kept."""
        requests: dict[str, Any] = dict(result["inputRequests"])
        if len(requests) > MAX_REQUESTS_PER_ROUND:
            raise TooManyRequests(len(requests))
        now = int(self._clock())
        call = {k: params[k] for k in ("name", "arguments") if k in params}
        meta = kept_meta(params.get("_meta"))
        if meta:
            call["_meta"] = meta
        body = {
            "rid": rid,
            "session": session.nonce,
            "owner": owner,
            "call": call,
            "requestState": result["requestState"],
            "keys": sorted(requests),
            "requests": requests,
            "state": "waiting",
        }
        if resuming is None:
            stream_id = secrets.token_urlsafe(16)
            round_ = 0
            doc = Document(STREAM, stream_id, body | {"round": 0}, 1, now, now, now + self._ttl)
            self._store.create(_owner(stream_id), doc.counted_for(f"{KEPT_KIND}/{caller}"), quota=self._kept_quota)
        else:
            stream_id, round_ = resuming.event.stream_id, resuming.doc.body["round"] + 1
            body |= {"round": round_}
            self._store.replace(
                _owner(stream_id), resuming.doc.next(body, now=now, expires_at=now + self._ttl), resuming.doc.version
            )
            resuming.suspended = True
        return self.requests(stream_id, round_, rid, requests)

    def requests(self, stream_id: str, round_: int, rid: str | int, requests: Mapping[str, Any]) -> bytes:
        """A round's stream: its priming event, then each request, its id naming the stream, round and key."""
        frames = [self.priming(EventId(stream_id, round_, 0, rid))]
        for key in sorted(requests):
            frames.append(_frame({"jsonrpc": "2.0", "id": f"{stream_id}.{round_}.{key}", **requests[key]}))
        return b"".join(frames)

    def keep_answer(self, message: Mapping[str, Any], session: Session | None, owner: str | None = None) -> None:
        """Keep a client's answer to one of a kept call's requests, from the session and verified caller (`owner`)
        that made the call; anything else is dropped, as before."""
        rid = message.get("id")
        if session is None or not isinstance(rid, str) or rid.count(".") < 2:
            return
        stream_id, round_text, key = rid.split(".", 2)
        if not _STREAM_ID.fullmatch(stream_id):
            return
        answer = kept_answer(message)
        doc = self._store.get(_owner(stream_id), STREAM, stream_id)
        if (
            doc is None
            or doc.expires_at <= self._clock()
            or doc.body["session"] != session.nonce
            or doc.body.get("owner") != owner
            or str(doc.body["round"]) != round_text
            or key not in doc.body["keys"]
        ):
            return
        now = int(self._clock())
        kept = Document(_answer_kind(doc.body["round"]), key, answer, 1, now, now, doc.expires_at)
        try:
            self._store.create(_owner(stream_id), kept)
        except AlreadyExists:
            pass  # the first answer to a request stands
        except ItemOverBudget:
            too_large = {"error": {"code": -32600, "message": "The answer is larger than this server keeps"}}
            with contextlib.suppress(AlreadyExists):
                self._store.create(_owner(stream_id), replace(kept, body=too_large))

    def load(self, event: EventId, session: Session | None) -> Document | None:
        """The kept call an event belongs to, if it is still kept for this session."""
        doc = self._store.get(_owner(event.stream_id), STREAM, event.stream_id)
        if doc is None or doc.expires_at <= self._clock() or session is None or doc.body["session"] != session.nonce:
            return None
        return doc

    def answers(self, doc: Document) -> dict[str, Any] | None:
        """This round's answers by key, once every request has one; None while some are missing. One read per
        answer, in key order, stopping at the first missing (a waiting poll reads one)."""
        found: dict[str, Any] = {}
        for key in doc.body["keys"]:
            answer = self._store.get(_owner(doc.doc_id), _answer_kind(doc.body["round"]), key)
            if answer is None:
                return None
            found[key] = answer.body
        return found

    def claim(self, doc: Document) -> Document | None:
        """Mark the call as running again (one GET at a time runs it); None if another GET got there first. The
        claim is the only run the call gets: one that outlives its lease is never run again (`lapsed`)."""
        now = self._clock()
        running = doc.next(
            doc.body | {"state": "running", "until": now + self._work}, now=int(now), expires_at=doc.expires_at
        )
        try:
            self._store.replace(_owner(doc.doc_id), running, doc.version)
        except VersionConflict:
            return None
        return running

    def release(self, doc: Document) -> None:
        """Let another GET run the call again (its run was refused before it started: a token to renew)."""
        now = int(self._clock())
        waiting = doc.next(doc.body | {"state": "waiting"}, now=now, expires_at=doc.expires_at)
        with contextlib.suppress(VersionConflict):
            self._store.replace(_owner(doc.doc_id), waiting, doc.version)

    def running(self, doc: Document) -> bool:
        return bool(doc.body["state"] == "running" and doc.body.get("until", 0) > self._clock())

    def lapsed(self, doc: Document) -> bool:
        """Whether the call's run outlived its lease: its holder died (a function past its timeout) or is slower than
        any run may be. Either way it is not run again, which could apply its effects twice."""
        return bool(doc.body["state"] == "running" and doc.body.get("until", 0) <= self._clock())

    def finish(self, doc: Document, reply: bytes) -> None:
        """Keep the call's last reply, so a GET that comes again (its first reply lost) gets it again; the call stops
        counting against its caller's quota an hour later. VersionConflict: another GET ended it first."""
        now = int(self._clock())
        body = doc.body | {"state": "done", "reply": reply.decode()}
        try:
            ended = doc.next(body, now=now, expires_at=doc.expires_at, live=False)
            self._store.replace(_owner(doc.doc_id), ended, doc.version)
        except ItemOverBudget:
            body["reply"] = None
            ended = doc.next(body, now=now, expires_at=doc.expires_at, live=False)
            self._store.replace(_owner(doc.doc_id), ended, doc.version)
