"""Sign-in in front of Cognito accepts OAuth client id metadata documents beside registration: a client whose id is
an https URL is sent to Cognito as the pool's client when its document (fetched through the fake source, which meets
the real one's contract) allows the redirect it asks for, and its token request reaches Cognito the same way.
Every hostile document is refused with a clear OAuth error and nothing reaches Cognito."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest
from client_document_sources import FakeDocumentSource, Page
from cognito_sign_in import API, COGNITO, cognito_sign_in
from widget_mcp.auth.client_documents import MAX_DOCUMENT_BYTES, ClientDocuments
from widget_mcp.auth.client_flow import ClientFlow, TokenAnswer
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.wiring import build_app, build_core

CLAUDE = "https://claude.ai/api/mcp/auth_callback"
CLIENT = "https://claude.ai/oauth/mcp-oauth-client-metadata"
PKCE = {"response_type": "code", "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"}


def _document(**overrides: Any) -> bytes:
    return json.dumps({"client_id": CLIENT, "client_name": "Claude", "redirect_uris": [CLAUDE], **overrides}).encode()


class RecordingTokens:
    """Cognito's token endpoint as the flow sees it: records each form, answers a token."""

    def __init__(self) -> None:
        self.forms: list[dict[str, str]] = []

    async def exchange(self, form: Mapping[str, str]) -> TokenAnswer:
        self.forms.append(dict(form))
        return TokenAnswer(200, b'{"access_token":"a","token_type":"Bearer"}', "application/json")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@dataclasses.dataclass
class Deployment:
    http: httpx.AsyncClient
    source: FakeDocumentSource
    tokens: RecordingTokens
    clock: Clock

    async def authorize(self, client_id: str = CLIENT, **params: str) -> httpx.Response:
        query = {"client_id": client_id, "redirect_uri": CLAUDE, "state": "s1", "code_challenge_method": "S256"}
        return await self.http.get("/oauth/authorize", params={**query, **PKCE, **params})


@pytest.fixture
async def deployment() -> AsyncIterator[Deployment]:
    source = FakeDocumentSource(
        pages={CLIENT: Page(body=_document())},
        addresses={"claude.ai": ["160.79.104.10"], "internal.example": ["10.1.2.3"]},
    )
    tokens, clock = RecordingTokens(), Clock()
    core = build_core(cognito_sign_in(CLAUDE), store=InMemoryDocumentStore())
    assert core.sign_in is not None
    assert core.sign_in.flow is not None  # on by default with the facade
    flow = ClientFlow(core.sign_in.flow.facade, ClientDocuments(source, clock=clock), tokens)
    core = dataclasses.replace(core, sign_in=dataclasses.replace(core.sign_in, flow=flow))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=build_app(core)), base_url=API) as http:
        yield Deployment(http, source, tokens, clock)


async def test_the_metadata_advertises_client_id_metadata_documents_and_the_endpoints_own_routes(
    deployment: Deployment,
) -> None:
    metadata = (await deployment.http.get("/.well-known/oauth-authorization-server")).json()
    assert metadata["client_id_metadata_document_supported"] is True
    assert (metadata["authorization_endpoint"], metadata["token_endpoint"]) == (
        f"{API}/oauth/authorize",
        f"{API}/oauth/token",
    )
    assert metadata["registration_endpoint"] == f"{API}/oauth/register"  # DCR stays


async def test_a_document_client_is_sent_to_cognito_as_the_pools_client_with_its_own_parameters(
    deployment: Deployment,
) -> None:
    answer = await deployment.authorize(resource=f"{API}/mcp", scope="widget-mcp/chess")
    assert answer.status_code == 302
    location = urlsplit(answer.headers["location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == f"{COGNITO}/oauth2/authorize"
    query = dict(parse_qsl(location.query))
    assert query["client_id"] == "client-1"
    assert (query["redirect_uri"], query["state"], query["resource"]) == (CLAUDE, "s1", f"{API}/mcp")
    assert query["code_challenge"] == PKCE["code_challenge"]


async def test_its_token_request_reaches_cognito_as_the_pools_client_and_the_document_is_fetched_once(
    deployment: Deployment,
) -> None:
    await deployment.authorize()
    form = {"grant_type": "authorization_code", "client_id": CLIENT, "code": "c1", "redirect_uri": CLAUDE}
    answer = await deployment.http.post("/oauth/token", data={**form, "code_verifier": "v" * 43})
    assert answer.status_code == 200
    assert answer.json()["access_token"] == "a"
    assert deployment.tokens.forms == [{**form, "client_id": "client-1", "code_verifier": "v" * 43}]
    assert deployment.source.fetched == [CLIENT]


async def test_the_document_is_fetched_again_once_its_cache_time_has_passed(deployment: Deployment) -> None:
    await deployment.authorize()
    deployment.clock.now += 301
    await deployment.authorize()
    assert deployment.source.fetched == [CLIENT, CLIENT]


async def test_a_registered_client_passes_through_to_cognito_unchanged(deployment: Deployment) -> None:
    answer = await deployment.authorize(client_id="client-1")
    assert dict(parse_qsl(urlsplit(answer.headers["location"]).query))["client_id"] == "client-1"
    assert deployment.source.fetched == []


def _refused(answer: httpx.Response, status: int, error: str, words: str) -> None:
    assert answer.status_code == status, answer.text
    assert "location" not in answer.headers  # never a redirect to an unverified redirect_uri
    assert answer.json()["error"] == error
    assert words in answer.json()["error_description"]


@pytest.mark.parametrize(
    ("page", "words"),
    [
        (Page(body=b'{"client_id": "' + b"x" * MAX_DOCUMENT_BYTES + b'"}'), "the limit is"),
        (Page(content_type="text/html", body=_document()), "not application/json"),
        (Page(status=301, location="http://169.254.169.254/latest/meta-data/"), "redirect"),
        (Page(body=_document(client_id="https://claude.ai/other")), "another client_id"),
        (Page(body=_document(token_endpoint_auth_method="client_secret_post")), "without a shared secret"),
        (Page(body=_document(redirect_uris=[])), "no redirect_uris"),
        (Page(body=b"[1, 2"), "not a JSON object"),
    ],
)
async def test_a_hostile_document_is_refused_as_an_invalid_client_and_nothing_reaches_cognito(
    deployment: Deployment, page: Page, words: str
) -> None:
    deployment.source.pages[CLIENT] = page
    _refused(await deployment.authorize(), 401, "invalid_client", words)
    form = {"grant_type": "authorization_code", "client_id": CLIENT, "code": "c", "redirect_uri": CLAUDE}
    _refused(await deployment.http.post("/oauth/token", data=form), 401, "invalid_client", words)
    assert deployment.tokens.forms == []


async def test_a_document_on_a_private_address_is_never_fetched_from(deployment: Deployment) -> None:
    client = "https://internal.example/client.json"
    deployment.source.pages[client] = Page(body=_document(client_id=client))
    _refused(await deployment.authorize(client_id=client), 401, "invalid_client", "not public")


@pytest.mark.parametrize(
    ("client_id", "words"),
    [
        ("https://claude.ai/", "must have a path"),
        ("https://user:pw@claude.ai/c.json", "user name or password"),
        ("https://claude.ai/a/../c.json", "'..' path segments"),
        ("https://claude.ai/" + "c" * 3000, "at most 2048"),
    ],
)
async def test_a_client_id_url_breaking_the_drafts_rules_is_refused_before_any_fetch(
    deployment: Deployment, client_id: str, words: str
) -> None:
    _refused(await deployment.authorize(client_id=client_id), 401, "invalid_client", words)
    assert deployment.source.fetched == []


async def test_a_redirect_uri_the_document_does_not_list_is_refused(deployment: Deployment) -> None:
    answer = await deployment.authorize(redirect_uri="https://evil.example/cb")
    _refused(answer, 400, "invalid_request", "not one of the client's metadata document's")
    form = {
        "grant_type": "authorization_code",
        "client_id": CLIENT,
        "code": "c",
        "redirect_uri": "https://evil.example/cb",
    }
    _refused(await deployment.http.post("/oauth/token", data=form), 400, "invalid_grant", "metadata document's")
    assert deployment.tokens.forms == []


async def test_a_redirect_the_document_lists_but_the_deployment_does_not_is_refused(deployment: Deployment) -> None:
    deployment.source.pages[CLIENT] = Page(body=_document(redirect_uris=[CLAUDE, "https://claude.ai/other/cb"]))
    answer = await deployment.authorize(redirect_uri="https://claude.ai/other/cb")
    _refused(answer, 400, "invalid_request", "OAuth callbacks list them")


async def test_a_document_client_without_pkce_is_refused(deployment: Deployment) -> None:
    _refused(await deployment.authorize(code_challenge_method="plain"), 400, "invalid_request", "PKCE")


async def test_an_unknown_plain_client_id_is_refused_and_not_forwarded(deployment: Deployment) -> None:
    _refused(await deployment.authorize(client_id="someone-else"), 401, "invalid_client", "unknown client_id")
    form = {"grant_type": "refresh_token", "client_id": "someone-else", "refresh_token": "r"}
    _refused(await deployment.http.post("/oauth/token", data=form), 401, "invalid_client", "unknown client_id")
    assert deployment.tokens.forms == []


async def test_a_repeated_parameter_is_refused(deployment: Deployment) -> None:
    answer = await deployment.http.get(f"/oauth/authorize?client_id={CLIENT}&client_id=client-1")
    _refused(answer, 400, "invalid_request", "more than once")
