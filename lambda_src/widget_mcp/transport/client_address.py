"""Where a request came from, as per-source limits count it.

The address is the connection's peer (API Gateway's `sourceIp`, uvicorn's client), never a header the caller
wrote: `X-Forwarded-For` is read only when TRUSTED_PROXY_HOPS says that many proxies in front append to it, and then
only the entry the nearest trusted one appended about its own peer. IPv6 sources are counted per /64, the block one
subscriber usually holds, so a caller cannot get a fresh allowance per address of its own network.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping

IPV6_PREFIX = 64


def client_address(peer: str | None, headers: Mapping[str, str], trusted_hops: int = 0) -> str | None:
    """The caller's address (an IPv6 one as its /64), or None when nothing trustworthy names one.

    With `trusted_hops` = N, the client is the Nth `X-Forwarded-For` entry from the right (each trusted proxy
    appends the address it received from); with fewer entries, the leftmost; an entry that is not an address
    falls back to the peer."""
    address = peer
    if trusted_hops > 0:
        forwarded = [part.strip() for part in headers.get("x-forwarded-for", "").split(",") if part.strip()]
        if forwarded:
            address = forwarded[-min(trusted_hops, len(forwarded))]
    return _normalized(address) or (_normalized(peer) if address != peer else None)


class DeferredAddress:
    """One request's `client_address`, worked out the first time something asks (the rate limit, a quota for a
    caller without identity) and kept: most calls never ask, and parsing the address costs a few µs."""

    __slots__ = ("_address", "_headers", "_known", "_peer", "_trusted_hops")

    def __init__(self, peer: str | None, headers: Mapping[str, str], trusted_hops: int = 0) -> None:
        self._peer = peer
        self._headers = headers
        self._trusted_hops = trusted_hops
        self._address: str | None = None
        self._known = False

    def __call__(self) -> str | None:
        if not self._known:
            self._address = client_address(self._peer, self._headers, self._trusted_hops)
            self._known = True
        return self._address


def _normalized(address: str | None) -> str | None:
    if not address:
        return None
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is None:
        return str(ipaddress.IPv6Network((ip, IPV6_PREFIX), strict=False))
    return str(ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped else ip)
