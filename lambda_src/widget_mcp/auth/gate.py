"""The sign-in gate: decides, per JSON-RPC request, whether it goes on (and as whom) or is answered with a
challenge. Pure: it reads headers and the decoded message, and the transport turns a refusal into HTTP."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

from widget_mcp.auth.tokens import AccessToken, TokenRejected
from widget_mcp.toolkit.results import error_wire

logger = logging.getLogger(__name__)

METADATA_PATH = "/.well-known/oauth-protected-resource"
_LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
# RFC 6750 3: the characters its challenge attributes may hold (printable ASCII but `"` and `\`).
_ATTRIBUTE_CHARACTERS = frozenset(chr(c) for c in range(0x20, 0x7F)) - {'"', "\\"}


class Verifier(Protocol):
    def verify(self, token: str) -> AccessToken: ...


@dataclass(frozen=True, slots=True)
class Admitted:
    """Go on; `subject` is the verified OAuth subject, or None when no token was sent (public tools only)."""

    subject: str | None


@dataclass(frozen=True, slots=True)
class Refused:
    """Answer with a challenge. `in_band`: as a tool error result (ChatGPT), else as HTTP `status`.
    `error` is the RFC 6750 error code, None when no credentials were sent."""

    status: int
    error: str | None
    description: str
    www_authenticate: str
    in_band: bool = False

    @property
    def code(self) -> str:
        """The tool error code: `identity_required` when no token came, else the RFC 6750 code."""
        return self.error or "identity_required"

    def tool_result(self) -> dict[str, Any]:
        """The in-band form: an error result whose `mcp/www_authenticate` makes ChatGPT offer sign-in."""
        return error_wire(self.code, self.description, meta={"mcp/www_authenticate": [self.www_authenticate]})


@dataclass(frozen=True)
class SignInPolicy:
    """What the gate needs to know: which tools need which scopes, and how the resource is named."""

    protected: Mapping[str, tuple[str, ...]]
    scopes_supported: tuple[str, ...]
    authorization_servers: tuple[str, ...]
    resource: str | None = None


class SignInGate:
    def __init__(self, policy: SignInPolicy, verifier: Verifier) -> None:
        self._policy = policy
        self._verifier = verifier

    def resource(self, headers: Mapping[str, str]) -> str:
        """The canonical MCP URL: the configured one, else the one this request reached."""
        return self._policy.resource or f"{_origin(headers)}/mcp"

    def metadata_url(self, headers: Mapping[str, str]) -> str:
        # RFC 9728 3.1: the well-known segment goes between the host and the resource's path.
        resource = urlsplit(self.resource(headers))
        return f"{resource.scheme}://{resource.netloc}{METADATA_PATH}{resource.path.rstrip('/')}"

    def metadata(self, headers: Mapping[str, str]) -> dict[str, Any]:
        """The protected-resource metadata document (RFC 9728)."""
        return {
            "resource": self.resource(headers),
            "authorization_servers": list(self._policy.authorization_servers),
            "scopes_supported": list(self._policy.scopes_supported),
            "bearer_methods_supported": ["header"],
            "resource_name": "widget-mcp",
        }

    def needs_verification(self, headers: Mapping[str, str]) -> bool:
        """Whether `check` would verify a token (and may fetch the issuer's keys, which blocks)."""
        return "authorization" in headers

    def check(self, headers: Mapping[str, str], message: Mapping[str, Any]) -> Admitted | Refused:
        required = self._required_scopes(message)
        in_band = required is not None and _openai_dialect(message)
        authorization = headers.get("authorization")
        if authorization is None:
            if required is None:
                return Admitted(None)
            # RFC 6750 3.1: a request with no credentials gets a challenge without an error attribute.
            return self._refuse(headers, 401, None, "Sign in to use this tool.", required, in_band)
        scheme, _, token = authorization.strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return self._refuse(headers, 401, "invalid_request", "Send the access token as 'Bearer <token>'.", None)
        try:
            access = self._verifier.verify(token.strip())
        except TokenRejected as exc:
            return self._refuse(headers, 401, "invalid_token", _sentence(exc.reason), required, in_band)
        except Exception:  # fail closed: a token the JOSE library chokes on is still a bad token
            logger.exception("a bearer token could not be verified")
            return self._refuse(headers, 401, "invalid_token", "The token could not be verified.", required, in_band)
        missing = access.missing(required or ())
        if missing:
            described = f"This tool needs the scope {' '.join(missing)}."
            return self._refuse(headers, 403, "insufficient_scope", described, required, in_band)
        return Admitted(access.subject)

    def _required_scopes(self, message: Mapping[str, Any]) -> tuple[str, ...] | None:
        """None: the request needs no sign-in; else the scopes its tool needs."""
        if message.get("method") != "tools/call":
            return None
        params = message.get("params")
        name = params.get("name") if isinstance(params, Mapping) else None
        return self._policy.protected.get(name) if isinstance(name, str) else None

    def _refuse(
        self,
        headers: Mapping[str, str],
        status: int,
        error: str | None,
        description: str,
        scopes: tuple[str, ...] | None,
        in_band: bool = False,
    ) -> Refused:
        params = [("resource_metadata", self.metadata_url(headers))]
        if error is not None:
            params += [("error", error), ("error_description", description)]
        if scopes:
            params.append(("scope", " ".join(scopes)))
        challenge = "Bearer " + ", ".join(f'{name}="{_attribute(value)}"' for name, value in params)
        return Refused(status, error, description, challenge, in_band)


def scopes_of(protected: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    """Every scope some tool needs, sorted: what the metadata and an issuer offer."""
    return tuple(sorted({scope for needed in protected.values() for scope in needed}))


def _origin(headers: Mapping[str, str]) -> str:
    host = headers.get("host", "localhost")
    # Host names are case-insensitive (RFC 3986 3.2.2): `LOCALHOST:8000` is loopback too.
    name = host.strip().lower()
    loopback = name.split(":")[0] in _LOOPBACK or name.startswith("[::1]")
    # The first proxy's word, and only a scheme this resource can have: the header is the caller's to write.
    forwarded = headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    scheme = forwarded if forwarded in ("http", "https") else ("http" if loopback else "https")
    return f"{scheme}://{host}"


def _attribute(value: str) -> str:
    """A challenge attribute's value, fit to stand between double quotes: the values are ours (fixed sentences,
    scopes, our URL), and whatever in them is not allowed there is dropped rather than escaped, as RFC 6750
    admits no escapes in them."""
    return "".join(c for c in value if c in _ATTRIBUTE_CHARACTERS)


def _openai_dialect(message: Mapping[str, Any]) -> bool:
    """ChatGPT offers account linking from a tool result's `mcp/www_authenticate`, not from an HTTP 401; its
    calls are the ones that carry `openai/*` hints."""
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, Mapping) else None
    return isinstance(meta, Mapping) and any(isinstance(k, str) and k.startswith("openai/") for k in meta)


def _sentence(reason: str) -> str:
    return reason[:1].upper() + reason[1:] + "."
