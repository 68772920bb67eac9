"""The caller's address is worked out only when something needs it (the rate limit, the quota of a caller without
identity), at most once per request: a call that uses no state never parses it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit.call import ToolCall
from widget_mcp.toolkit.principal import ANONYMOUS, Principal
from widget_mcp.transport import client_address as addresses
from widget_mcp.transport.client_address import DeferredAddress
from widget_mcp.wiring import Core, build_core

HOST = "api.example.com"
HEADERS = {"host": HOST, "content-type": "application/json", "accept": "application/json"}
PEER = "2001:db8:1:2::9"


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """Every address `client_address` works out, in order."""
    seen: list[str | None] = []
    real = addresses.client_address

    def counted(peer: str | None, headers: Any, trusted_hops: int = 0) -> str | None:
        seen.append(real(peer, headers, trusted_hops))
        return seen[-1]

    monkeypatch.setattr(addresses, "client_address", counted)
    return seen


@pytest.fixture
def core(monkeypatch: pytest.MonkeyPatch) -> Core:
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    settings = Settings(allowed_hosts=(HOST,))
    return build_core(settings, store=InMemoryDocumentStore(max_item_bytes=settings.max_item_bytes))


async def call(core: Core, tool: str, arguments: dict[str, Any], meta: dict[str, Any] | None = None) -> Any:
    params: dict[str, Any] = {"name": tool, "arguments": arguments, **({"_meta": meta} if meta else {})}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).encode()
    reply = await core.endpoint.handle("POST", HEADERS, body, peer=PEER)
    assert reply.status == 200, reply.body
    result = json.loads(reply.body)["result"]
    assert not result.get("isError"), result
    return result


def test_a_deferred_address_is_worked_out_on_the_first_ask_and_kept(lookups: list[str | None]) -> None:
    address = DeferredAddress(PEER, {"x-forwarded-for": "198.51.100.7"}, 1)
    assert lookups == []
    assert address() == address() == "198.51.100.7"
    assert lookups == ["198.51.100.7"]


async def test_a_call_without_identity_that_uses_no_state_works_out_the_address_once_for_its_rate_limit(
    core: Core, lookups: list[str | None]
) -> None:
    await call(core, "display_demo", {"message": "hi"})
    assert lookups == ["2001:db8:1:2::/64"]


async def test_an_identified_call_that_uses_no_state_never_works_out_the_address(
    core: Core, lookups: list[str | None]
) -> None:
    await call(core, "display_demo", {"message": "hi"}, meta={"openai/subject": "alice"})
    assert lookups == []


async def test_a_call_without_identity_that_uses_state_works_out_the_address_once(
    core: Core, lookups: list[str | None]
) -> None:
    await call(core, "chess_new_game", {})
    assert lookups == ["2001:db8:1:2::/64"]  # the rate limit and the quota both counted it


async def test_an_identified_call_that_uses_state_never_works_out_the_address(
    core: Core, lookups: list[str | None]
) -> None:
    await call(core, "chess_new_game", {}, meta={"openai/subject": "alice"})
    assert lookups == []


def test_a_tool_call_given_a_lookup_reads_as_the_address_it_finds() -> None:
    asked: list[int] = []

    def lookup() -> str:
        asked.append(1)
        return "203.0.113.9"

    anonymous = ToolCall(tool="t", principal=ANONYMOUS, source=lookup)
    assert anonymous.caller == "source:203.0.113.9"
    assert anonymous.source == "203.0.113.9"
    assert asked == [1]
    identified = ToolCall(tool="t", principal=Principal("oauth", "u1"), source=lookup)
    assert identified.caller == "oauth:u1"
    assert asked == [1]
