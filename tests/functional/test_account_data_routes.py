"""`/account/data` with sign-in on: a signed-in user exports (GET) and erases (DELETE) its own data with its bearer
token, verified as on `/mcp`; no token or a bad one is a 401 challenge with nothing read or deleted, and another
user's data is untouched."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from cognito_sign_in import cognito_sign_in, web_app_client
from starlette.applications import Starlette
from widget_mcp.auth.account_routes import ACCOUNT_DATA_PATH, account_routes
from widget_mcp.auth.gate import SignInGate, SignInPolicy
from widget_mcp.auth.tokens import AccessToken, TokenRejected
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit.limits import CallLimiter, RateLimit
from widget_mcp.transport.guards import CorsPolicy, HostAllowlist
from widget_mcp.wiring import Core, build_core

from tests.functional.test_my_data import example_call, makers

HOST = "127.0.0.1:8000"


class Tokens:
    """An issuer's verifier: `alice` and `bob` are those users' valid tokens, anything else has expired."""

    def verify(self, token: str) -> AccessToken:
        if token not in ("alice", "bob"):
            raise TokenRejected("the token has expired")
        return AccessToken(subject=token, scopes=frozenset())


@pytest.fixture
def core(settings: Settings) -> Core:
    return build_core(settings, store=InMemoryDocumentStore())


@pytest.fixture
async def http(core: Core) -> AsyncIterator[httpx.AsyncClient]:
    protected = {name: () for name in core.runtime.tools}
    gate = SignInGate(SignInPolicy(protected, (), ("https://issuer.example.com",)), Tokens())
    app = Starlette(routes=account_routes(gate, core.runtime, HostAllowlist((HOST,)), CorsPolicy()))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=f"http://{HOST}") as client:
        yield client


async def make_state(core: Core, subject: str) -> None:
    for spec in makers():
        result = await core.runtime.call(spec.name, example_call(spec), None, subject=subject)
        assert not result.get("isError"), result


def kept(core: Core, subject: str) -> list[str]:
    assert isinstance(core.store, InMemoryDocumentStore)
    return sorted(doc_id for (owner, _, doc_id) in core.store._items if owner == f"oauth:{subject}")


async def test_a_signed_in_user_exports_then_erases_its_data_and_another_users_stays(
    core: Core, http: httpx.AsyncClient
) -> None:
    await make_state(core, "alice")
    await make_state(core, "bob")
    alices, bobs = kept(core, "alice"), kept(core, "bob")

    exported = await http.get(ACCOUNT_DATA_PATH, headers={"authorization": "Bearer alice"})
    erased = await http.delete(ACCOUNT_DATA_PATH, headers={"authorization": "Bearer alice"})

    assert exported.status_code == 200
    assert sorted(item["id"] for item in exported.json()["items"]) == alices
    assert erased.status_code == 200
    assert erased.json()["complete"] is True
    assert kept(core, "alice") == []
    assert kept(core, "bob") == bobs
    assert exported.headers["cache-control"] == "no-store"


async def test_a_user_past_its_rate_limit_is_refused_before_anything_is_read_or_erased(
    core: Core, http: httpx.AsyncClient
) -> None:
    await make_state(core, "alice")
    before = kept(core, "alice")
    core.runtime.limiter = CallLimiter(core.store, RateLimit(calls=1, window_seconds=3600))
    alice = {"authorization": "Bearer alice"}

    exported = await http.get(ACCOUNT_DATA_PATH, headers=alice)
    refused = await http.delete(ACCOUNT_DATA_PATH, headers=alice)

    assert exported.status_code == 200
    assert refused.status_code == 429
    assert refused.json()["error"] == "rate_limited"
    assert 0 < int(refused.headers["retry-after"]) <= 3600
    assert refused.headers["cache-control"] == "no-store"
    assert kept(core, "alice") == before


@pytest.mark.parametrize("authorization", [None, "Bearer expired", "Basic YWxpY2U6eA=="])
async def test_without_a_valid_token_the_route_challenges_and_deletes_nothing(
    core: Core, http: httpx.AsyncClient, authorization: str | None
) -> None:
    await make_state(core, "alice")
    before = kept(core, "alice")
    headers = {"authorization": authorization} if authorization else {}

    answers = [await http.request(method, ACCOUNT_DATA_PATH, headers=headers) for method in ("GET", "DELETE")]

    assert [a.status_code for a in answers] == [401, 401]
    assert all(a.headers["www-authenticate"].startswith("Bearer ") for a in answers)
    assert kept(core, "alice") == before


async def test_a_deployment_with_sign_in_serves_the_route_and_one_without_does_not() -> None:
    async with web_app_client(cognito_sign_in("https://chatgpt.com/connector_platform_oauth_redirect")) as signed:
        challenged = await signed.delete(ACCOUNT_DATA_PATH)
    async with web_app_client(cognito_sign_in("https://x.example.com/cb", auth_mode="none")) as public:
        absent = await public.delete(ACCOUNT_DATA_PATH)

    assert challenged.status_code == 401
    assert "resource_metadata=" in challenged.headers["www-authenticate"]
    assert absent.status_code == 404


async def test_get_pages_with_the_cursor_of_the_previous_page_and_a_forged_one_is_a_400(
    core: Core, http: httpx.AsyncClient
) -> None:
    from widget_mcp.apps.books import AppContext
    from widget_mcp.apps.my_data.service import BATCH
    from widget_mcp.apps.my_data.tools import declared_kinds
    from widget_mcp.storage.documents import Document

    app_kinds = declared_kinds(AppContext(core.settings, core.store))
    kind = next(kind for kinds in app_kinds.values() for kind in kinds)
    for n in range(BATCH + 3):
        core.store.create("oauth:alice", Document(kind, f"{n:06d}", {}, 1, 1, 1, 2**40))
    alice = {"authorization": "Bearer alice"}

    first = (await http.get(ACCOUNT_DATA_PATH, headers=alice)).json()
    second = await http.get(ACCOUNT_DATA_PATH, params={"cursor": first["nextCursor"]}, headers=alice)
    forged = await http.get(ACCOUNT_DATA_PATH, params={"cursor": first["nextCursor"][:-2]}, headers=alice)
    bobs = await http.get(
        ACCOUNT_DATA_PATH, params={"cursor": first["nextCursor"]}, headers={"authorization": "Bearer bob"}
    )

    assert (len(first["items"]), first["complete"]) == (BATCH, False)
    assert second.status_code == 200
    assert (len(second.json()["items"]), second.json()["complete"]) == (3, True)
    ids = [item["id"] for item in first["items"] + second.json()["items"]]
    assert sorted(ids) == sorted(set(ids)) == kept(core, "alice")
    assert (forged.status_code, forged.json()["error"]) == (400, "invalid_cursor")
    assert (bobs.status_code, bobs.json()["error"]) == (400, "invalid_cursor")
