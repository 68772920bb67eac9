"""The signed ids a resumable stream's client holds (resumption.py): its session (`Mcp-Session-Id`, what it declared
in `initialize`) and the event ids of its streams (`Last-Event-ID`), each with the priming event that carries it and
the `retry` the client waits before it resumes. Signed with the requestState key, so an id this server did not issue
costs no read."""

from __future__ import annotations

import base64
import json
import logging
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

from widget_mcp.secrets import SecretUnavailable

# The kept calls' log (resumption.py), which these ids are checked for.
logger = logging.getLogger("widget_mcp.transport.resumption")

# What a session keeps of the capabilities `initialize` declared: what input requests and widgets depend on.
KEPT_CAPABILITIES = ("elicitation", "sampling", "roots")
APPS_EXTENSION = "io.modelcontextprotocol/ui"
FIRST_RETRY_MS, LONGEST_RETRY_MS = 500, 5_000
# How often a session's standalone stream (resource changes, subscriptions.py) is polled.
# The clients keep one `retry` per connection for all its streams, so this is a waiting call's longest too: a call
# is never resumed later than that for a session that also listens.
LISTEN_RETRY_MS = LONGEST_RETRY_MS
_SESSION_PREFIX = "s1."
# The longest `Last-Event-ID` this server issues is far shorter (a stream id, round, poll and the call's id, whose
# length a resumable call's id is held to).
_EVENT_ID_LIMIT = 1024
# The most a session keeps of what a client declared, as JSON; past it, the capabilities' names alone.
_DECLARED_LIMIT = 1_024
# The most of a client's name a session keeps (the widget hosts' names are a few dozen characters).
_NAME_LIMIT = 64


class Signer(Protocol):
    """The requestState key's HMAC (toolkit/request_state.py's RequestStates), for the tokens this module signs."""

    def sign(self, label: str, text: str) -> str: ...

    def verify(self, label: str, text: str, mac: str) -> bool: ...


@dataclass(frozen=True, slots=True)
class Session:
    """A verified `Mcp-Session-Id`: who the client said it was in `initialize`, as far as this server keeps it."""

    nonce: str
    capabilities: dict[str, Any]
    # `clientInfo.name`, cut to _NAME_LIMIT: some hosts that show widgets say so only by their name.
    client_name: str | None = None


@dataclass(frozen=True, slots=True)
class EventId:
    """`ended`: the id that came with the call's response; a client holding it has nothing more to resume."""

    stream_id: str
    round: int
    poll: int
    rid: str | int
    ended: bool = False


@dataclass(frozen=True, slots=True)
class ListenEvent:
    """A session's standalone stream: the changes after `since_ms` are still to be delivered."""

    session: str
    since_ms: int


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def retry_ms(poll: int) -> int:
    """How long the client waits before its next GET: short at first (a program answers at once), longer while a
    person fills a form, so a waiting client costs at most one request every few seconds."""
    return int(min(FIRST_RETRY_MS * 2 ** min(poll, 8), LONGEST_RETRY_MS))


class StreamIds:
    """Sessions and event ids, signed by `signer` (the requestState key's HMAC)."""

    def __init__(self, signer: Signer) -> None:
        self._signer = signer

    def issue_session(self, capabilities: object, client_info: object = None) -> str:
        kept: dict[str, Any] = {}
        if isinstance(capabilities, Mapping):
            kept = {k: capabilities[k] for k in KEPT_CAPABILITIES if isinstance(capabilities.get(k), Mapping)}
            extensions = capabilities.get("extensions")
            if isinstance(extensions, Mapping) and isinstance(extensions.get(APPS_EXTENSION), Mapping):
                kept["extensions"] = {APPS_EXTENSION: extensions[APPS_EXTENSION]}
        if len(json.dumps(kept)) > _DECLARED_LIMIT:
            # Declared at length: which capabilities, not their settings, so the header stays one this server reads.
            kept = {k: ({APPS_EXTENSION: {}} if k == "extensions" else {}) for k in kept}
        value: list[Any] = [secrets.token_urlsafe(12), kept]
        name = client_info.get("name") if isinstance(client_info, Mapping) else None
        if isinstance(name, str) and name:
            value.append(name[:_NAME_LIMIT])
        return _SESSION_PREFIX + self._token("session", value)

    def session(self, header: str | None) -> Session | None:
        """The session a header names, if this server issued it; None for any other value."""
        if not header or not header.startswith(_SESSION_PREFIX):
            return None
        match self._signed("session", header[len(_SESSION_PREFIX) :], 4096):
            case [str(nonce), dict(capabilities)]:
                return Session(nonce, capabilities)
            case [str(nonce), dict(capabilities), str(name)]:
                return Session(nonce, capabilities, name)
        return None

    def _signed(self, label: str, token: str, limit: int) -> Any:
        """What a token (`<base64 JSON>.<mac>`) this server signed for `label` holds; None for any other value
        (too long, not ASCII, forged), found without a read, and while the key cannot be read (logged)."""
        if len(token) > limit or not token.isascii():
            return None
        body, _, mac = token.partition(".")
        try:
            genuine = self._signer.verify(label, body, mac)  # the MAC's one canonical spelling, current or previous key
        except SecretUnavailable as exc:
            logger.error("a signed session or event id cannot be checked: %s", exc)
            return None
        return json.loads(_unb64(body)) if genuine else None

    def _token(self, label: str, value: object) -> str:
        body = _b64(json.dumps(value, separators=(",", ":")).encode())
        return f"{body}.{self._signer.sign(label, body)}"

    # --- event ids ---

    def event(self, header: str | None) -> EventId | None:
        """The event a `Last-Event-ID` names, if this server issued it; None for any other value."""
        if not header:
            return None
        match self._signed("stream-event", header, _EVENT_ID_LIMIT):
            case [str(stream_id), int(round_), int(poll), str() | int() as rid]:
                return EventId(stream_id, round_, poll, rid)
            case [str(stream_id), int(round_), int(poll), str() | int() as rid, "ended"]:
                return EventId(stream_id, round_, poll, rid, ended=True)
        return None

    def listen_priming(self, event: ListenEvent) -> bytes:
        """The event that opens each reply of a session's standalone stream."""
        event_id = self._token("listen-event", [event.session, event.since_ms])
        return f"id: {event_id}\nretry: {LISTEN_RETRY_MS}\ndata: \n\n".encode()

    def listening(self, header: str | None) -> ListenEvent | None:
        """The standalone stream a `Last-Event-ID` names, if this server issued it."""
        if not header:
            return None
        match self._signed("listen-event", header, _EVENT_ID_LIMIT):
            case [str(session), int(since_ms)]:
                return ListenEvent(session, since_ms)
        return None

    def priming(self, event: EventId) -> bytes:
        """The event that opens every reply of a stream: its id (the client's `Last-Event-ID`) and `retry`."""
        fields = [event.stream_id, event.round, event.poll, event.rid, *(["ended"] if event.ended else [])]
        return f"id: {self._token('stream-event', fields)}\nretry: {retry_ms(event.poll)}\ndata: \n\n".encode()

    def ending(self, event: EventId, response: bytes) -> bytes:
        """The reply that ends a stream with the call's response (an SSE frame): its priming id says so, and a
        client that resumes from that id all the same is told the stream is over (405) without a read. One that lost
        the reply resumes from the id before, and gets it again."""
        return self.priming(replace(event, ended=True)) + response
