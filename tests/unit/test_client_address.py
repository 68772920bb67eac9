"""Which address per-source limits count: the connection's, unless trusted proxies say otherwise; IPv6 per /64."""

from __future__ import annotations

import pytest
from widget_mcp.transport.client_address import client_address


def test_the_connections_address_is_the_callers_and_forwarded_headers_are_ignored_by_default() -> None:
    assert client_address("203.0.113.9", {"x-forwarded-for": "198.51.100.7"}) == "203.0.113.9"


@pytest.mark.parametrize(
    ("forwarded", "hops", "expected"),
    [
        ("198.51.100.7", 1, "198.51.100.7"),
        ("10.9.9.9, 198.51.100.7", 1, "198.51.100.7"),  # whatever the caller wrote sits left of the proxy's entry
        ("10.9.9.9, 198.51.100.7, 192.0.2.1", 2, "198.51.100.7"),
        ("198.51.100.7", 3, "198.51.100.7"),  # fewer entries than proxies: the farthest one known
        ("not-an-address", 1, "203.0.113.9"),
        ("", 1, "203.0.113.9"),
    ],
)
def test_behind_trusted_proxies_the_entry_the_nearest_one_appended_is_the_callers(
    forwarded: str, hops: int, expected: str
) -> None:
    assert client_address("203.0.113.9", {"x-forwarded-for": forwarded}, hops) == expected


@pytest.mark.parametrize(
    ("peer", "expected"),
    [
        ("2001:db8:7:1:aaaa:bbbb:cccc:dddd", "2001:db8:7:1::/64"),
        ("2001:db8:7:1::1", "2001:db8:7:1::/64"),
        ("::ffff:203.0.113.9", "203.0.113.9"),  # an IPv4 client on a dual-stack socket
        ("203.0.113.9", "203.0.113.9"),
    ],
)
def test_ipv6_callers_are_counted_per_64_bit_network_and_ipv4_ones_per_address(peer: str, expected: str) -> None:
    assert client_address(peer, {}) == expected


@pytest.mark.parametrize("peer", [None, "", "unix-socket"])
def test_without_a_readable_address_there_is_no_source(peer: str | None) -> None:
    assert client_address(peer, {}) is None
