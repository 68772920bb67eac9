"""Identify: who sends a request (a host token, else an OAuth token when sign-in is on) and, for a 2025-11-25
request, its session (RESUMABLE_STREAMS): what the request is served as (`Exchange`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import anyio.to_thread
from mcp.shared.inbound import InboundModernRoute
from mcp_types import DEFAULT_NEGOTIATED_VERSION

from widget_mcp.auth.gate import Refused, SignInGate
from widget_mcp.transport.call_events import CallEvents, LiveStream, accepts_event_stream
from widget_mcp.transport.caller import Caller
from widget_mcp.transport.host_identity import HostIdentity, HostRefusal
from widget_mcp.transport.replies import HttpReply
from widget_mcp.transport.resumption import MAX_RESUMABLE_ID_LENGTH, RESUMING_VERSION, Resuming, Streams
from widget_mcp.transport.session_listing import READ_BY_SESSION
from widget_mcp.transport.steps.exchange import Exchange
from widget_mcp.transport.steps.reply import challenge, host_refused

# The 2025-11-25 requests that need the client's session (with RESUMABLE_STREAMS): its subscriptions are kept by it.
SESSION_METHODS = frozenset({"resources/subscribe", "resources/unsubscribe"})


class Identification:
    """`gate`: sign-in, when on; `host`: the hosts whose tokens vouch for their users; `streams`: the sessions of
    resumable 2025-11-25 calls, when on."""

    __slots__ = ("_gate", "_host", "_streams")

    def __init__(self, gate: SignInGate | None, host: HostIdentity, streams: Streams | None) -> None:
        self._gate = gate
        self._host = host
        self._streams = streams

    def exchange(
        self,
        message: dict[str, Any],
        headers: Mapping[str, str],
        http_request_id: str | None,
        peer: str | None,
        modern: InboundModernRoute | None,
        *,
        batched: bool,
        live: LiveStream | None,
        resuming: Resuming | None,
        caller: Caller | None,
    ) -> Exchange | HttpReply:
        """A screened request as it is served: in the 2026-07-28 era (`modern`: the SDK's verdict on its envelope),
        or in the handshake era with its session, if it needs one and has one; and who sends it: `caller` when
        already admitted (a resumed call), else whom the request's credentials name, or their refusal. Its caller
        is None when a token is to be verified, which blocks: `caller` in a worker thread then."""
        rid = message["id"]
        method = message["method"]
        params = message.get("params")
        events = None
        if method == "tools/call" and not batched and (live is not None or accepts_event_stream(headers)):
            events = CallEvents(live)
        # A 2026-07-28 request declares its client in its envelope and has no session: it neither resumes nor is
        # resumable.
        client_info = client_capabilities = session = None
        resumable = False
        if modern is not None:
            version = modern.protocol_version
            client_info, client_capabilities = modern.client_info, modern.client_capabilities
        else:
            version = headers.get("mcp-protocol-version") or DEFAULT_NEGOTIATED_VERSION
            # A call's id rides in its stream's event ids: one too long for a header is not resumed (its client
            # gets `input_unsupported` if the tool asks).
            resumable = events is not None and len(json.dumps(rid)) <= MAX_RESUMABLE_ID_LENGTH
            needs_session = resumable or method in SESSION_METHODS or method in READ_BY_SESSION
            if self._streams is not None and needs_session and version == RESUMING_VERSION:
                session = self._streams.session(headers.get("mcp-session-id"))
        if caller is None and not (self._gate is not None and self._gate.needs_verification(headers)):
            admitted = self.caller(headers, message)
            if isinstance(admitted, HttpReply):
                return admitted
            caller = admitted
        return Exchange(
            rid,
            method,
            params,
            headers,
            http_request_id,
            modern=modern is not None,
            version=version,
            client_info=client_info,
            client_capabilities=client_capabilities,
            peer=peer,
            events=events,
            session=session,
            resumable=resumable and session is not None,
            resuming=resuming if session is not None else None,
            caller=caller,
        )

    def caller(self, headers: Mapping[str, str], message: Mapping[str, Any]) -> Caller | HttpReply:
        """Who sends `message`, from the request's credentials (a host token, else an OAuth token when sign-in is
        on), or the refusal of those credentials. Blocks while a token's issuer keys are fetched."""
        rid = message.get("id")
        params = message.get("params")
        host = self._host.admit(headers, str(message.get("method")), params if isinstance(params, dict) else None)
        if isinstance(host, HostRefusal):
            return host_refused(rid, host)
        if host is not None:
            return Caller(host_subject=host.principal_subject)
        if self._gate is None:
            return Caller()
        admission = self._gate.check(headers, message)
        if isinstance(admission, Refused):
            return challenge(rid, admission)
        return Caller(subject=admission.subject)

    async def identify(self, headers: Mapping[str, str], message: Mapping[str, Any]) -> Caller | HttpReply:
        """`caller`, in a worker thread when a token is to be verified (fetching the issuer's keys blocks, and may go
        to this very server)."""
        if self._gate is not None and self._gate.needs_verification(headers):
            return await anyio.to_thread.run_sync(self.caller, headers, message)
        return self.caller(headers, message)
