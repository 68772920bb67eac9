"""The endpoint's answers to the read-only methods come from a cache filled from the SDK's own answers: the bytes
are those of the uncached endpoint for every cached method in both protocol eras, with the caller's id, and
anything the cache does not key on still reaches the server. The guards, the sign-in gate and CORS stay in front."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from widget_mcp.auth.gate import SignInGate, SignInPolicy
from widget_mcp.auth.tokens import AccessToken, TokenRejected
from widget_mcp.server import build_server
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.transport.endpoint import McpEndpoint
from widget_mcp.transport.guards import CorsPolicy, HostAllowlist
from widget_mcp.transport.replies import HttpReply
from widget_mcp.wiring import build_core

HOST = "api.example.com"
BROWSER = "https://host.example.com"
HEADERS = {"host": HOST, "content-type": "application/json", "accept": "application/json, text/event-stream"}
MODERN = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "cache-test", "version": "1.0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
LIST_METHODS = ("tools/list", "resources/list", "resources/templates/list")


class ServedMethods(ServerMiddleware[Any]):
    """Counts the requests that reached the SDK's kernel, by method."""

    def __init__(self) -> None:
        self.count: Counter[str] = Counter()

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        self.count[ctx.method] += 1
        return await call_next(ctx)


class Endpoints:
    """The same server behind a cached endpoint and an uncached one."""

    def __init__(self, gate: SignInGate | None = None, auth: bool = False) -> None:
        settings = Settings(
            allowed_hosts=(HOST,), cors_origins=(BROWSER,), table_name="state", **_oauth() if auth else {}
        )
        runtime = build_core(settings, store=InMemoryDocumentStore()).runtime
        self.served = ServedMethods()
        server = build_server(runtime)
        server.middleware.append(self.served)
        self.templates = sorted(runtime.templates)

        def endpoint(server: Any, answer_cache: bool) -> McpEndpoint:
            return McpEndpoint(
                server,
                allowed_hosts=HostAllowlist(settings.allowed_hosts),
                max_body_bytes=settings.max_body_bytes,
                max_json_depth=settings.max_json_depth,
                gate=gate,
                cors=CorsPolicy(settings.cors_origins),
                answer_cache=answer_cache,
            )

        self.cached = endpoint(server, True)
        self.plain = endpoint(build_server(runtime), False)


def _oauth() -> dict[str, Any]:
    return {"auth_mode": "oauth", "oauth_issuer": "https://issuer.example.com", "oauth_audience": ("client-1",)}


@pytest.fixture
def endpoints(monkeypatch: pytest.MonkeyPatch) -> Endpoints:
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    return Endpoints()


def rpc(method: str, params: dict[str, Any] | None = None, rid: str | int = 1) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        message["params"] = params
    return message


def modern(
    method: str, params: dict[str, Any] | None = None, name: str | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    headers = {"mcp-protocol-version": MODERN, "mcp-method": method}
    if name is not None:
        headers["mcp-name"] = name
    return rpc(method, {**(params or {}), "_meta": ENVELOPE}), headers


async def post(endpoint: McpEndpoint, message: dict[str, Any], headers: dict[str, str] | None = None) -> HttpReply:
    return await endpoint.handle("POST", {**HEADERS, **(headers or {})}, json.dumps(message).encode())


def initialize(version: str, capabilities: dict[str, Any], client: str = "host") -> dict[str, Any]:
    return rpc(
        "initialize",
        {"protocolVersion": version, "capabilities": capabilities, "clientInfo": {"name": client, "version": "2"}},
    )


def handshake_requests(templates: list[str]) -> list[tuple[dict[str, Any], dict[str, str]]]:
    capabilities: list[dict[str, Any]] = [
        {},
        {"roots": {"listChanged": True}, "sampling": {}, "elicitation": {}},
        {"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}},
    ]
    versions = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2099-01-01")
    requests = [(initialize(v, c), {}) for v in versions for c in capabilities]
    requests += [(rpc("ping"), {}), (rpc("ping", {}), {})]
    requests += [(rpc(method), {}) for method in LIST_METHODS]
    requests += [(rpc("tools/list", {}), {"mcp-protocol-version": "2025-06-18"})]
    requests += [(rpc("resources/read", {"uri": uri}), {}) for uri in templates]
    return requests


def stateless_requests(templates: list[str]) -> list[tuple[dict[str, Any], dict[str, str]]]:
    requests = [modern("server/discover")]  # ping is gone from 2026-07-28
    requests += [modern(method) for method in LIST_METHODS]
    requests += [modern("resources/read", {"uri": uri}, name=uri) for uri in templates]
    return requests


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_every_cached_answer_is_byte_identical_to_the_uncached_one_in_both_eras(
    endpoints: Endpoints, era: str
) -> None:
    requests = (handshake_requests if era == "2025-11-25" else stateless_requests)(endpoints.templates)
    for message, headers in requests:
        expected = await post(endpoints.plain, message, headers)
        assert expected.status == 200, (message, expected.body)
        assert "result" in json.loads(expected.body), (message, expected.body)
        for _ in range(3):  # the first fills the cache; the rest are answered from it
            assert await post(endpoints.cached, message, headers) == expected, message
    # The server answered each distinct request once.
    assert endpoints.served.count == Counter(message["method"] for message, _ in requests)


async def test_the_cached_answers_carry_what_the_wire_extras_add(endpoints: Endpoints) -> None:
    for _ in range(2):
        init = json.loads((await post(endpoints.cached, initialize("2025-11-25", {}))).body)["result"]
        tools = json.loads((await post(endpoints.cached, rpc("tools/list"))).body)["result"]["tools"]
        assert init["capabilities"]["extensions"] == {
            "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}
        }
        assert all(tool["securitySchemes"] == [{"type": "noauth"}] for tool in tools)


async def test_initialize_answers_the_version_each_client_asked_for_once_another_was_cached(
    endpoints: Endpoints,
) -> None:
    for version, agreed in (("2025-11-25", "2025-11-25"), ("2025-06-18", "2025-06-18"), ("1999-01-01", "2025-11-25")):
        for _ in range(2):
            reply = await post(endpoints.cached, initialize(version, {}))
            assert json.loads(reply.body)["result"]["protocolVersion"] == agreed


@pytest.mark.parametrize("rid", [7, 0, -3, 2**70, "abc", "ü-ñ 🙂", ""])
async def test_a_cached_answer_carries_the_callers_id(endpoints: Endpoints, rid: str | int) -> None:
    await post(endpoints.cached, rpc("tools/list", rid="filler"))
    cached = await post(endpoints.cached, rpc("tools/list", rid=rid))
    assert cached == await post(endpoints.plain, rpc("tools/list", rid=rid))
    assert json.loads(cached.body)["id"] == rid
    assert endpoints.served.count["tools/list"] == 1


async def test_a_cached_answer_needs_no_event_loop(endpoints: Endpoints) -> None:
    message = json.dumps(rpc("resources/list")).encode()
    await endpoints.cached.handle("POST", HEADERS, message)
    assert isinstance(endpoints.cached.begin("POST", HEADERS, message), HttpReply)


@pytest.mark.parametrize(
    ("method", "params", "headers"),
    [
        ("tools/list", {"cursor": "abc"}, {}),
        ("tools/list", {"_meta": {"progressToken": 1}}, {}),
        ("resources/list", {"extra": True}, {}),
        ("ping", {"pad": "x"}, {}),
        ("initialize", {**initialize("2025-11-25", {})["params"], "_meta": {"progressToken": "p"}}, {}),
        (
            "tools/list",
            {"_meta": {**ENVELOPE, "openai/subject": "u1"}},
            {"mcp-protocol-version": MODERN, "mcp-method": "tools/list"},
        ),
        ("resources/read", {"uri": "ui://widget/missing.html"}, {}),
        ("initialize", {"protocolVersion": "2025-11-25"}, {}),
        (
            "tools/list",
            {"_meta": {**ENVELOPE, CLIENT_INFO: {"name": "x" * 5000, "version": "1"}}},
            {"mcp-protocol-version": MODERN, "mcp-method": "tools/list"},
        ),
    ],
    ids=[
        "cursor",
        "progress-token",
        "unknown-param",
        "ping-padding",
        "initialize-meta",
        "host-hints",
        "unknown-uri",
        "bad-initialize",
        "huge-client-info",
    ],
)
async def test_requests_the_cache_does_not_key_on_reach_the_server_every_time(
    endpoints: Endpoints, method: str, params: dict[str, Any], headers: dict[str, str]
) -> None:
    message = rpc(method, params)
    expected = await post(endpoints.plain, message, headers)
    for n in (1, 2, 3):
        assert await post(endpoints.cached, message, headers) == expected
        assert endpoints.served.count[method] == n


async def test_an_answer_the_cache_dropped_comes_from_the_server_again(endpoints: Endpoints) -> None:
    before = await post(endpoints.cached, rpc("tools/list"))
    await post(endpoints.cached, rpc("tools/list"))
    endpoints.cached.forget_answers()
    assert await post(endpoints.cached, rpc("tools/list")) == before
    assert endpoints.served.count["tools/list"] == 2


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"host": "attacker.example.com"}, 421),
        ({"origin": "https://attacker.example.com"}, 403),
        ({"content-type": "text/plain"}, 415),
        ({"accept": "text/html"}, 406),
    ],
)
async def test_the_transport_guards_still_refuse_a_request_whose_answer_is_cached(
    endpoints: Endpoints, headers: dict[str, str], status: int
) -> None:
    await post(endpoints.cached, rpc("tools/list"))
    refused = await post(endpoints.cached, rpc("tools/list"), headers)
    assert refused == await post(endpoints.plain, rpc("tools/list"), headers)
    assert refused.status == status


async def test_2026_requests_whose_headers_disagree_are_refused_even_when_cached(endpoints: Endpoints) -> None:
    message, headers = modern("tools/list")
    await post(endpoints.cached, message, headers)
    refused = await post(endpoints.cached, message, {**headers, "mcp-method": "resources/list"})
    assert refused.status == 400
    assert json.loads(refused.body)["error"]["code"] == -32020


async def test_a_cached_answer_to_a_listed_browser_origin_keeps_the_cors_headers(endpoints: Endpoints) -> None:
    await post(endpoints.cached, rpc("tools/list"))
    reply = await post(endpoints.cached, rpc("tools/list"), {"origin": BROWSER})
    assert reply == await post(endpoints.plain, rpc("tools/list"), {"origin": BROWSER})
    assert dict(reply.headers)["access-control-allow-origin"] == BROWSER
    assert dict(reply.headers)["vary"] == "Origin"


class Tokens:
    def verify(self, token: str) -> AccessToken:
        if token != "good":
            raise TokenRejected("the token has expired")
        return AccessToken(subject="alice", scopes=frozenset({"chess"}))


async def test_with_sign_in_a_cached_list_still_refuses_a_bad_token_and_serves_everyone_else_alike(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    policy = SignInPolicy(protected={"chess_move": ("chess",)}, scopes_supported=("chess",), authorization_servers=())
    endpoints = Endpoints(SignInGate(policy, Tokens()), auth=True)
    anonymous = await post(endpoints.cached, rpc("tools/list"))
    signed_in = await post(endpoints.cached, rpc("tools/list"), {"authorization": "Bearer good"})
    expired = await post(endpoints.cached, rpc("tools/list"), {"authorization": "Bearer stale"})
    assert anonymous == signed_in == await post(endpoints.plain, rpc("tools/list"))
    assert endpoints.served.count["tools/list"] == 1
    assert expired.status == 401
    assert expired == await post(endpoints.plain, rpc("tools/list"), {"authorization": "Bearer stale"})
    schemes = {t["name"]: t["securitySchemes"] for t in json.loads(signed_in.body)["result"]["tools"]}
    assert schemes["chess_move"] == [{"type": "oauth2", "scopes": ["chess"]}]
