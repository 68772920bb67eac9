"""`make dev` parses some bodies itself before the endpoint's checks (its event feed reads every `/mcp` call, its
local issuer reads registrations): JSON nested past Python's recursion limit gets the same 400 there as from the
deployed function, never a 500."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from widget_mcp.local.process import LocalServer, local_server

# Past CPython's default recursion limit (1000) for json.loads, far under MAX_BODY_BYTES.
NESTED = b"[" * 100_000 + b"]" * 100_000
# As deep, and under the local issuer's body bound (16 KB).
NESTED_REGISTRATION = b"[" * 5_000 + b"]" * 5_000
JSON = {"content-type": "application/json", "accept": "application/json"}


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with local_server("deep-json-state", settings={"AUTH_MODE": "oauth"}) as running:
        yield running


def test_a_body_nested_past_the_recursion_limit_gets_a_json_rpc_error_from_mcp(server: LocalServer) -> None:
    answer = httpx.post(f"{server.base}/mcp", content=NESTED, headers=JSON)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["code"] in (-32700, -32600)
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert httpx.post(f"{server.base}/mcp", json=ping, headers=JSON).json()["result"] == {}


def test_a_registration_nested_past_the_recursion_limit_is_refused_as_invalid_metadata(server: LocalServer) -> None:
    answer = httpx.post(f"{server.base}/issuer/register", content=NESTED_REGISTRATION, headers=JSON)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] == "invalid_client_metadata"
