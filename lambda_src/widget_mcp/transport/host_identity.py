"""Host tokens at `/mcp` (auth/host_tokens.py), and the one route a widget in a sandboxed frame has.

A host integration (Open WebUI's) vouches for its user with a signed token in the `x-widget-mcp-user` header;
the user it names owns the call's state. Its embedded widgets run in a frame whose origin is opaque (`Origin:
null`, shared by every sandboxed frame on the web), which the CORS allowlist never lists. With HOST_TOKEN_SECRET
set, such a request is served only when it carries a valid host token, and only as a `tools/call` of a tool a
widget may call (`openai/widgetAccessible`), as is any request with a `widget`-scoped token: the widget gets
exactly what it has in any other host, for one user, until its token expires. Without a token, or with sign-in
on (where only OAuth tokens name users), `Origin: null` is refused as before.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from widget_mcp.auth.host_tokens import HEADER, HostTokenRejected, HostTokens, HostUser
from widget_mcp.secrets import SecretUnavailable

logger = logging.getLogger(__name__)

OPAQUE_ORIGIN = "null"
# HTTP requires a challenge on every 401 (RFC 9110 15.5.2); it names the header a host token travels in and
# echoes nothing from the request.
HOST_TOKEN_CHALLENGE = f'HostToken realm="widget-mcp", header="{HEADER}", error="invalid_token"'


@dataclass(frozen=True, slots=True)
class HostRefusal:
    status: int
    message: str

    @property
    def headers(self) -> tuple[tuple[str, str], ...]:
        if self.status == 401:
            return (("www-authenticate", HOST_TOKEN_CHALLENGE),)
        return (("retry-after", "1"),) if self.status == 503 else ()


class HostIdentity:
    def __init__(
        self, tokens: HostTokens | None, widget_callable: Callable[[object], bool], *, sign_in: bool = False
    ) -> None:
        self._tokens = tokens
        self._widget_callable = widget_callable
        self._sign_in = sign_in

    @property
    def serves_opaque_origin(self) -> bool:
        """Whether a sandboxed widget's requests (`Origin: null`) may be served at all."""
        return self._tokens is not None and not self._sign_in

    def admit(
        self, headers: Mapping[str, str], method: str, params: Mapping[str, Any] | None
    ) -> HostUser | HostRefusal | None:
        """The user a valid token names, None when the request carries none (and needs none), else a refusal."""
        token = headers.get(HEADER)
        opaque = headers.get("origin") == OPAQUE_ORIGIN
        if token is None:
            if opaque:
                return HostRefusal(403, "Origin not allowed: a widget in a sandboxed frame needs its host token")
            return None
        if self._sign_in:
            return HostRefusal(401, "Sign-in is on: host tokens are not accepted; send an OAuth access token")
        if self._tokens is None:
            return HostRefusal(401, "This server accepts no host tokens: set HOST_TOKEN_SECRET to the host's secret")
        try:
            user = self._tokens.verify(token)
        except HostTokenRejected as exc:
            return HostRefusal(401, f"Host token rejected: {exc}")
        except SecretUnavailable as exc:  # HOST_TOKEN_SECRET_ARN could not be read: the server's fault, retried
            logger.error("host tokens cannot be checked: %s", exc)
            return HostRefusal(
                503, "Host tokens cannot be checked right now: the server could not read its secret; try again shortly"
            )
        if opaque or user.scope == "widget":
            name = params.get("name") if params else None
            if method != "tools/call" or not self._widget_callable(name):
                return HostRefusal(403, "A widget's host token may only call the tools a widget may call")
        return user
