"""The directories' ownership proofs over HTTP: each token set answers at its well-known path as text/plain, byte for
byte; unset, the path is 404; the deployed app (build_app, as Lambda serves it) and `make dev`'s app both serve them."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from starlette.types import ASGIApp
from widget_mcp.local.app import build_local_app
from widget_mcp.publishing.challenges import OPENAI_CHALLENGE_PATH, REGISTRY_AUTH_PATH
from widget_mcp.settings import Settings, SettingsError, load_settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.wiring import Core, build_app, build_core

OPENAI_TOKEN = "oai-challenge-3f9a1c0d5e"
# The registry's HTTP proof is a whole record, spaces and semicolons included.
REGISTRY_TOKEN = "v=MCPv1; k=ed25519; p=MCowBQYDK2VwAyEAexampleexampleexampleexample="


def _core(**settings: object) -> Core:
    # The Host allowlist is stated, not taken from a process environment another test may have changed.
    settings.setdefault("allowed_hosts", ("127.0.0.1:*",))
    return build_core(Settings(**settings), store=InMemoryDocumentStore())  # type: ignore[arg-type]


def _lambda_app(core: Core) -> ASGIApp:
    return build_app(core)


def _dev_app(core: Core) -> ASGIApp:
    return build_local_app(core)


APPS = pytest.mark.parametrize("make_app", [_lambda_app, _dev_app], ids=["deployed", "make-dev"])


async def _get(app: ASGIApp, path: str, host: str = "127.0.0.1:8000") -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=f"http://{host}") as client:
        return await client.get(path)


@APPS
async def test_each_token_set_is_answered_exactly_as_plain_text_at_its_path(
    make_app: Callable[[Core], ASGIApp],
) -> None:
    app = make_app(_core(openai_apps_challenge=OPENAI_TOKEN, mcp_registry_auth=REGISTRY_TOKEN))
    for path, token in ((OPENAI_CHALLENGE_PATH, OPENAI_TOKEN), (REGISTRY_AUTH_PATH, REGISTRY_TOKEN)):
        answer = await _get(app, path)
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/plain")
        assert answer.content == token.encode()


@APPS
async def test_an_unset_token_leaves_its_path_not_found(make_app: Callable[[Core], ASGIApp]) -> None:
    app = make_app(_core(openai_apps_challenge=OPENAI_TOKEN))
    assert (await _get(app, REGISTRY_AUTH_PATH)).status_code == 404
    bare = make_app(_core())
    assert (await _get(bare, OPENAI_CHALLENGE_PATH)).status_code == 404


async def test_a_host_outside_the_allowlist_is_not_given_the_token() -> None:
    app = build_app(_core(openai_apps_challenge=OPENAI_TOKEN))
    answer = await _get(app, OPENAI_CHALLENGE_PATH, host="evil.example.com")
    assert answer.status_code == 421
    assert OPENAI_TOKEN not in answer.text


def test_tokens_are_read_from_the_environment_and_an_empty_one_is_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_APPS_CHALLENGE", f"  {OPENAI_TOKEN}\n")
    monkeypatch.setenv("MCP_REGISTRY_AUTH", "")
    settings = load_settings()
    assert (settings.openai_apps_challenge, settings.mcp_registry_auth) == (OPENAI_TOKEN, None)


@pytest.mark.parametrize("bad", ["two\nlines", "tab\there", "é-accented", "x" * 1025])
def test_a_token_that_could_not_be_served_as_given_is_refused_at_start_naming_its_variable(
    monkeypatch: pytest.MonkeyPatch, bad: str
) -> None:
    monkeypatch.setenv("OPENAI_APPS_CHALLENGE", bad)
    with pytest.raises(SettingsError, match="OPENAI_APPS_CHALLENGE: must be one line of printable ASCII"):
        load_settings()
