"""What each kind of POST gets in each protocol revision the server speaks, over real HTTP (uvicorn) and through
`widget_mcp.handler.handler`: an unsupported `MCP-Protocol-Version`, a client's JSON-RPC response, and JSON-RPC
batches (2025-03-26 and older only)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from apigw_events import Context, Handler, rpc, v2
from mcp_types.version import MODERN_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS
from servers import serve

HOST = "abc123.execute-api.eu-west-1.amazonaws.com"  # the ALLOWED_HOSTS tests/lambda/conftest.py sets
MODERN = "2026-07-28"
HANDSHAKE_ERAS = [None, "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]  # None: no header (2025-03-26)
BATCH_ERAS = [None, "2024-11-05", "2025-03-26"]
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
NOTIFICATION = {"jsonrpc": "2.0", "method": "notifications/initialized"}
RESPONSE = {"jsonrpc": "2.0", "id": 0, "result": {}}


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


Post = Callable[[Any, dict[str, str]], Reply]


@pytest.fixture(scope="module")
def over_http(handler: Handler) -> Iterator[Post]:
    """The web app built on the handler's own core, on a loopback port."""
    from widget_mcp.handler import core
    from widget_mcp.wiring import build_app

    with serve(build_app(core)) as url, httpx.Client(timeout=30) as http:

        def post(body: Any, headers: dict[str, str]) -> Reply:
            sent = {"host": HOST, "content-type": "application/json", "accept": "application/json", **headers}
            answer = http.post(f"{url}/mcp", content=json.dumps(body).encode(), headers=sent)
            return Reply(answer.status_code, dict(answer.headers), answer.content)

        yield post


def _through_lambda(handler: Handler) -> Post:
    def post(body: Any, headers: dict[str, str]) -> Reply:
        reply = handler(v2(body, headers=headers), Context())
        return Reply(reply["statusCode"], reply.get("headers") or {}, (reply.get("body") or "").encode())

    return post


@pytest.fixture(params=["http", "lambda"])
def post(request: pytest.FixtureRequest, handler: Handler) -> Post:
    if request.param == "http":
        chosen: Post = request.getfixturevalue("over_http")
        return chosen
    return _through_lambda(handler)


def _version(era: str | None) -> dict[str, str]:
    return {} if era is None else {"mcp-protocol-version": era}


def _modern(method: str, params: dict[str, Any] | None = None, *, id: int = 1) -> tuple[dict[str, Any], dict[str, str]]:
    message = rpc(method, {**(params or {}), "_meta": ENVELOPE}, id=id)
    headers = {"mcp-protocol-version": MODERN, "mcp-method": method}
    if params and "name" in params:
        headers["mcp-name"] = params["name"]
    return message, headers


# --- an MCP-Protocol-Version the server does not speak ------------------------------------------------------


@pytest.mark.parametrize("version", ["2099-01-01", "2025-13-45", "", "latest"])
@pytest.mark.parametrize("kind", ["handshake request", "2026-07-28 request", "notification", "batch"])
def test_an_unsupported_protocol_version_header_is_named_with_the_versions_the_server_speaks(
    post: Post, version: str, kind: str
) -> None:
    bodies: dict[str, Any] = {
        "handshake request": rpc("tools/list", id=7),
        "2026-07-28 request": _modern("tools/list", id=7)[0],
        "notification": NOTIFICATION,
        "batch": [rpc("ping", id=7)],
    }
    reply = post(bodies[kind], {"mcp-protocol-version": version, "mcp-method": "tools/list"})
    assert reply.status == 400
    error = reply.json()["error"]
    assert error["code"] == -32022
    assert error["message"].startswith(f"Unsupported MCP-Protocol-Version header {version!r}")
    assert "_meta" not in error["message"]
    # A 2026-07-28 client may retry with what server/discover advertises; any other, with any version served.
    supported = MODERN_PROTOCOL_VERSIONS if kind == "2026-07-28 request" else SUPPORTED_PROTOCOL_VERSIONS
    assert error["data"] == {"supported": list(supported), "requested": version}
    assert all(v in error["message"] for v in SUPPORTED_PROTOCOL_VERSIONS)
    assert reply.json()["id"] == (7 if kind.endswith("request") else None)


@pytest.mark.parametrize("era", [*HANDSHAKE_ERAS[1:], MODERN])
def test_every_version_the_error_lists_is_served(post: Post, era: str) -> None:
    if era == MODERN:
        message, headers = _modern("tools/list")
    else:
        message, headers = rpc("tools/list"), _version(era)
    reply = post(message, headers)
    assert reply.status == 200, reply
    assert reply.json()["result"]["tools"]


# --- a client's JSON-RPC response ----------------------------------------------------------------------------


@pytest.mark.parametrize("era", HANDSHAKE_ERAS)
@pytest.mark.parametrize(
    "response",
    [RESPONSE, {"jsonrpc": "2.0", "id": "a", "error": {"code": -1, "message": "no"}}, {**RESPONSE, "id": None}],
)
def test_up_to_2025_11_25_a_clients_response_is_accepted_with_an_empty_202(
    post: Post, era: str | None, response: dict[str, Any]
) -> None:
    reply = post(response, _version(era))
    assert (reply.status, reply.body) == (202, b"")


def test_in_2026_07_28_a_clients_response_is_refused_with_a_precise_error(post: Post) -> None:
    reply = post(RESPONSE, {"mcp-protocol-version": MODERN})
    assert reply.status == 400
    assert reply.json()["error"]["code"] == -32600
    assert "clients send no responses" in reply.json()["error"]["message"]


@pytest.mark.parametrize(
    ("message", "says"),
    [
        ({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "x"}}, "one of result or error"),
        ({"jsonrpc": "2.0", "result": {}}, "carries an id"),
        ({"jsonrpc": "2.0", "id": [1], "result": {}}, "carries an id"),
        ({"jsonrpc": "2.0", "id": 1}, "needs a method (a request or notification), or a result or an error"),
        ({"jsonrpc": "2.0", "id": None, "method": "ping"}, "a request's id is a string or an integer"),
        ({"jsonrpc": "2.0", "id": 1, "method": 5}, "the method must be a string"),
    ],
)
@pytest.mark.parametrize("era", [None, "2025-11-25"])
def test_a_message_that_is_neither_request_notification_nor_response_is_told_what_it_lacks(
    post: Post, message: dict[str, Any], says: str, era: str | None
) -> None:
    reply = post(message, _version(era))
    assert reply.status == 400
    assert reply.json()["error"]["code"] == -32600
    assert says in reply.json()["error"]["message"]


# --- JSON-RPC batches ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("era", BATCH_ERAS)
def test_up_to_2025_03_26_a_batch_is_served_in_order_and_answered_as_one_array(post: Post, era: str | None) -> None:
    batch = [
        rpc("ping", id="first"),
        NOTIFICATION,
        rpc("tools/call", {"name": "display_demo", "arguments": {"message": "batched"}}, id=2),
        RESPONSE,
        rpc("tools/destroy", id=3),
    ]
    reply = post(batch, _version(era))
    assert reply.status == 200
    assert reply.headers["content-type"] == "application/json"
    answers = reply.json()
    assert [a["id"] for a in answers] == ["first", 2, 3]
    assert answers[0]["result"] == {}
    assert answers[1]["result"]["structuredContent"] == {"message": "batched", "length": 7, "words": 1}
    assert answers[2]["error"]["code"] == -32601


@pytest.mark.parametrize("era", BATCH_ERAS)
def test_a_batch_of_notifications_and_responses_only_gets_an_empty_202(post: Post, era: str | None) -> None:
    reply = post([NOTIFICATION, RESPONSE, NOTIFICATION], _version(era))
    assert (reply.status, reply.body) == (202, b"")


def test_a_batchs_bad_members_get_their_own_errors_beside_the_good_ones(post: Post) -> None:
    init = rpc("initialize", {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t"}})
    reply = post([init, 5, rpc("ping", id=9), rpc("ping", [1], id=10)], {})  # type: ignore[arg-type]
    assert reply.status == 200
    answers = reply.json()
    assert [(a["id"], a["error"]["code"]) for a in answers if "error" in a] == [
        (1, -32600),
        (None, -32600),
        (10, -32602),
    ]
    assert answers[0]["error"]["message"] == "Invalid Request: initialize cannot be batched"
    assert {"jsonrpc": "2.0", "id": 9, "result": {}} in answers


def test_an_empty_batch_and_one_over_the_cap_are_refused(post: Post) -> None:
    from widget_mcp.handler import core

    cap = core.settings.max_batch_messages
    empty = post([], {})
    over = post([rpc("ping", id=n) for n in range(cap + 1)], {})
    full = post([rpc("ping", id=n) for n in range(cap)], {})
    assert [empty.status, over.status, full.status] == [400, 400, 200]
    assert empty.json()["error"]["message"] == "Invalid Request: the batch is empty"
    assert over.json()["error"]["message"] == f"Invalid Request: a batch may hold at most {cap} messages"
    assert len(full.json()) == cap


@pytest.mark.parametrize("era", BATCH_ERAS)
def test_a_batch_serves_one_tool_call_and_refuses_the_others_so_it_costs_one_requests_work(
    post: Post, era: str | None
) -> None:
    # Each tools/call may take up to the work one request is allowed (a form's answer check, an engine reply):
    # several in one POST would multiply it.
    call = {"name": "display_demo", "arguments": {"message": "batched"}}
    reply = post([rpc("tools/call", call, id=1), rpc("ping", id=2), rpc("tools/call", call, id=3)], _version(era))
    assert reply.status == 200
    first, ping, refused = reply.json()
    assert first["result"]["structuredContent"] == {"message": "batched", "length": 7, "words": 1}
    assert ping == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert refused["id"] == 3
    assert refused["error"]["code"] == -32600
    assert refused["error"]["message"] == (
        "Invalid Request: a batch may hold one tools/call; send each other call in a POST of its own"
    )


@pytest.mark.parametrize("era", ["2025-06-18", "2025-11-25", MODERN])
def test_from_2025_06_18_on_a_batch_is_refused_naming_the_revision(post: Post, era: str) -> None:
    reply = post([rpc("ping")], {"mcp-protocol-version": era})
    assert reply.status == 400
    assert reply.json()["error"]["code"] == -32600
    assert reply.json()["error"]["message"].startswith(f"Invalid Request: MCP {era} has no JSON-RPC batches")


def test_with_sign_in_on_a_batch_with_a_protected_call_and_no_token_gets_the_challenge(
    handler: Handler, monkeypatch: pytest.MonkeyPatch
) -> None:
    import widget_mcp.handler as module
    from cognito_sign_in import cognito_sign_in
    from widget_mcp.storage.memory import InMemoryDocumentStore
    from widget_mcp.wiring import build_core

    signed_in = build_core(cognito_sign_in("https://host.example.com/cb"), store=InMemoryDocumentStore())
    monkeypatch.setattr(module, "core", signed_in)
    protected = sorted(signed_in.runtime.protected_tools())[0]
    batch = [rpc("ping", id=1), rpc("tools/call", {"name": protected, "arguments": {}}, id=2)]
    reply = _through_lambda(handler)(batch, {})
    assert reply.status == 401
    assert reply.headers["www-authenticate"].startswith("Bearer resource_metadata=")
    assert reply.json()["id"] == 2
    assert _through_lambda(handler)([rpc("ping", id=1)], {}).json() == [{"jsonrpc": "2.0", "id": 1, "result": {}}]
