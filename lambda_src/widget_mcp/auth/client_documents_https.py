"""The client documents' port over https (httpx2, which the MCP SDK already ships): the host is resolved first and
every address must be public, then the connection goes to that address (so a second DNS answer cannot point it
elsewhere) with the host name for TLS; redirects are not followed, and the body is read only up to the size limit."""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Awaitable, Callable, Sequence
from urllib.parse import urlsplit

from widget_mcp.auth.client_documents import (
    FETCH_TIMEOUT_SECONDS,
    MAX_DOCUMENT_BYTES,
    DocumentUnavailable,
    check_answer,
    is_public_address,
)

Resolver = Callable[[str, int], Awaitable[Sequence[str]]]


async def resolve_host(host: str, port: int) -> list[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class HttpsDocumentSource:
    def __init__(
        self,
        *,
        resolve: Resolver = resolve_host,
        allowed: Callable[[str], bool] = is_public_address,
        verify: ssl.SSLContext | bool = True,
        timeout: float = FETCH_TIMEOUT_SECONDS,
    ) -> None:
        self._resolve = resolve
        self._allowed = allowed
        self._verify = verify
        self._timeout = timeout

    async def fetch(self, url: str) -> bytes:
        import httpx2 as httpx  # imported on the first fetch, never on a cold start

        parts = urlsplit(url)
        if parts.scheme != "https" or not parts.hostname:
            raise DocumentUnavailable("only https URLs are fetched")
        host, port = parts.hostname, parts.port or 443
        try:
            async with asyncio.timeout(self._timeout):
                return await self._fetch(parts.path or "/", parts.query, host, port, parts.netloc)
        except TimeoutError as exc:
            raise DocumentUnavailable(f"the document did not arrive within {self._timeout:g} s") from exc
        except httpx.HTTPError as exc:
            raise DocumentUnavailable(f"the document could not be fetched ({type(exc).__name__})") from exc

    async def _fetch(self, path: str, query: str, host: str, port: int, netloc: str) -> bytes:
        import httpx2 as httpx

        try:
            addresses = await self._resolve(host, port)
        except OSError as exc:
            raise DocumentUnavailable(f"the client's host {host[:100]} does not resolve") from exc
        if not addresses or not all(self._allowed(a) for a in addresses):
            raise DocumentUnavailable(f"the client's host {host[:100]} resolves to an address that is not public")
        pinned = f"[{addresses[0]}]" if ":" in addresses[0] else addresses[0]
        target = f"https://{pinned}:{port}{path}" + (f"?{query}" if query else "")
        # Raw bytes are counted, so nothing compressed is asked for (a small gzip can decode to gigabytes).
        headers = {"host": netloc.rsplit("@", 1)[-1], "accept": "application/json", "accept-encoding": "identity"}
        async with (
            httpx.AsyncClient(verify=self._verify, follow_redirects=False, timeout=self._timeout, trust_env=False) as c,
            c.stream("GET", target, headers=headers, extensions={"sni_hostname": host}) as answer,
        ):
            length = answer.headers.get("content-length")
            check_answer(
                answer.status_code,
                answer.headers.get("content-type", ""),
                int(length) if length and length.isdigit() else None,
            )
            body = bytearray()
            async for chunk in answer.aiter_raw():
                body += chunk
                if len(body) > MAX_DOCUMENT_BYTES:
                    raise DocumentUnavailable(f"the document is over the limit of {MAX_DOCUMENT_BYTES} bytes")
            return bytes(body)
