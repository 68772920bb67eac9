"""OAuth Client ID Metadata Documents (MCP authorization 2025-11-25; draft-ietf-oauth-client-id-metadata-document):
a client whose `client_id` is an https URL describes itself in the JSON document at that URL, so it needs no
registration. This module holds the rules for the URL and the document, the port the document is fetched through,
and a small cache; the https fetch itself is `client_documents_https.py`.

The bounds are the fetch's, whoever implements the port: https only, public addresses only, no redirects, a 200
with a JSON content type, at most MAX_DOCUMENT_BYTES, within FETCH_TIMEOUT_SECONDS.
"""

from __future__ import annotations

import ipaddress
import json
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlsplit

# The draft suggests 5 KB; Claude's own document has been larger than that (cloudflare/mcp#46), so 32 KB.
MAX_DOCUMENT_BYTES = 32 * 1024
FETCH_TIMEOUT_SECONDS = 3.0
MAX_URL_LENGTH = 2048
CACHE_SECONDS = 300.0
CACHE_ENTRIES = 128
MAX_REDIRECT_URIS = 32
JSON_TYPES = ("application/json",)
# Client authentication with a shared secret makes no sense for a document anyone can read (the draft refuses them).
SECRET_METHODS = ("client_secret_post", "client_secret_basic", "client_secret_jwt")


class ClientRefused(ValueError):
    """`error` is the OAuth error code; the message is its description, safe to show the caller."""

    def __init__(self, error: str, description: str) -> None:
        super().__init__(description)
        self.error = error


class DocumentUnavailable(Exception):
    """The fetch broke one of the bounds or failed; the message says which, in one sentence."""


class DocumentSource(Protocol):
    """Fetches a client's document within the bounds above, or raises DocumentUnavailable."""

    async def fetch(self, url: str) -> bytes: ...


def is_client_document_url(client_id: str) -> bool:
    return client_id.startswith("https://")


def check_client_id_url(url: str) -> None:
    """The draft's rules for the URL itself: https, a host, a path, no fragment, no credentials, no dot segments."""
    if len(url) > MAX_URL_LENGTH:
        raise ClientRefused("invalid_client", f"a client id URL is at most {MAX_URL_LENGTH} characters")
    parts = urlsplit(url)
    problem = ""
    if parts.scheme != "https" or not parts.hostname:
        problem = "must be an https URL"
    elif parts.username is not None or parts.password is not None:
        problem = "must not carry a user name or password"
    elif parts.fragment or "#" in url:
        problem = "must not have a fragment"
    elif not parts.path.strip("/"):
        problem = "must have a path"
    elif any(segment in (".", "..") for segment in parts.path.split("/")):
        problem = "must not have '.' or '..' path segments"
    if problem:
        raise ClientRefused("invalid_client", f"the client id {url[:200]!r} {problem}")


def is_public_address(address: str) -> bool:
    """Only addresses on the public internet: no loopback, private, link-local (the instance metadata service),
    shared, multicast or reserved ones, in IPv4 or IPv6 (an IPv4-mapped IPv6 address counts as its IPv4 one)."""
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def check_answer(status: int, content_type: str, length: int | None) -> None:
    """The response's own bounds, checked before its body is read (`length`: Content-Length when sent)."""
    if 300 <= status < 400:
        raise DocumentUnavailable(f"the document answered a redirect ({status}); it must be served at its own URL")
    if status != 200:
        raise DocumentUnavailable(f"the document answered {status}, not 200")
    if content_type.split(";")[0].strip().lower() not in JSON_TYPES:
        raise DocumentUnavailable(f"the document's content type is {content_type[:80]!r}, not application/json")
    if length is not None and length > MAX_DOCUMENT_BYTES:
        raise DocumentUnavailable(f"the document is {length} bytes; the limit is {MAX_DOCUMENT_BYTES}")


@dataclass(frozen=True)
class ClientDocument:
    client_id: str
    redirect_uris: tuple[str, ...]
    client_name: str


def parse_document(url: str, body: bytes) -> ClientDocument:
    """The document's rules: a JSON object naming this URL as its client_id, https (or loopback) redirect URIs,
    and no shared secret."""
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        document = None
    if not isinstance(document, dict):
        raise ClientRefused("invalid_client", "the client's metadata document is not a JSON object")
    if document.get("client_id") != url:
        raise ClientRefused("invalid_client", "the client's metadata document names another client_id than its URL")
    uris = document.get("redirect_uris")
    if not isinstance(uris, list) or not uris or not all(isinstance(u, str) and u for u in uris):
        raise ClientRefused("invalid_client", "the client's metadata document lists no redirect_uris")
    if len(uris) > MAX_REDIRECT_URIS:
        raise ClientRefused("invalid_client", f"the client's metadata document lists over {MAX_REDIRECT_URIS} URIs")
    method = document.get("token_endpoint_auth_method", "none")
    if method in SECRET_METHODS or "client_secret" in document or "client_secret_expires_at" in document:
        raise ClientRefused("invalid_client", "a metadata document's client authenticates without a shared secret")
    if method != "none":
        raise ClientRefused("invalid_client", "only public clients (token_endpoint_auth_method 'none') are accepted")
    name = document.get("client_name")
    return ClientDocument(url, tuple(uris), name[:200] if isinstance(name, str) else "")


class ClientDocuments:
    """Resolves client id URLs to their documents through the port, keeping good ones for CACHE_SECONDS (the
    authorize request and the token request that follows read it once). Failures are never kept."""

    def __init__(
        self,
        source: DocumentSource,
        *,
        clock: Callable[[], float] = time.monotonic,
        ttl: float = CACHE_SECONDS,
        entries: int = CACHE_ENTRIES,
    ) -> None:
        self._source = source
        self._clock = clock
        self._ttl = ttl
        self._entries = entries
        self._cache: OrderedDict[str, tuple[float, ClientDocument]] = OrderedDict()

    async def resolve(self, url: str) -> ClientDocument:
        check_client_id_url(url)
        kept = self._cache.get(url)
        now = self._clock()
        if kept is not None and kept[0] > now:
            self._cache.move_to_end(url)
            return kept[1]
        try:
            body = await self._source.fetch(url)
        except DocumentUnavailable as exc:
            raise ClientRefused("invalid_client", f"the client's metadata document was refused: {exc}") from exc
        document = parse_document(url, body)
        self._cache[url] = (now + self._ttl, document)
        self._cache.move_to_end(url)
        while len(self._cache) > self._entries:
            self._cache.popitem(last=False)
        return document
