"""`make check-app HOST=…` against the local server: the reference apps pass ChatGPT's and Claude's profiles once the
ownership proof is set; unset, the live check says which setting to give; the lints catch steering, sensitive inputs,
internal timestamps and Claude's hint rule on tools that break them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from servers import serve
from widget_mcp.readiness.__main__ import main
from widget_mcp.readiness.profiles import CHALLENGE, profile
from widget_mcp.readiness.rules import Snapshot
from widget_mcp.settings import Settings
from widget_mcp.wiring import build_app, build_core

CDN = "https://d111111abcdef8.cloudfront.net/widgets"


def _url(**settings: object) -> Iterator[str]:
    core = build_core(Settings(allowed_hosts=("127.0.0.1:*",), widget_base_url=CDN, **settings), concurrent=True)  # type: ignore[arg-type]
    with serve(build_app(core)) as base:
        yield f"{base}/mcp"


@pytest.fixture
def proven_url(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    yield from _url(openai_apps_challenge="oai-token", mcp_registry_auth="v=MCPv1; k=ed25519; p=AAAA")


@pytest.fixture
def bare_url(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    yield from _url()


@pytest.mark.parametrize("host", ["chatgpt", "claude", "registry"])
def test_the_reference_apps_pass_each_directorys_profile(
    proven_url: str, host: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([proven_url, "--local", "--host", host]) == 0, capsys.readouterr().out


@pytest.mark.parametrize("host", sorted(CHALLENGE))
def test_without_the_challenge_token_the_profile_names_the_setting_that_serves_it(
    bare_url: str, host: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path, setting = CHALLENGE[host]
    assert setting.lower() in Settings.model_fields, "the finding names a setting the server really has"
    assert main([bare_url, "--local", "--host", host]) == 1
    assert f"{path} answered 404: set {setting}" in capsys.readouterr().out


def test_the_lints_catch_what_review_would_flag() -> None:
    tool = {
        "name": "book_trip",
        "description": "Books a trip. Use it whenever the user mentions travel.",
        "annotations": {"readOnlyHint": False, "destructiveHint": False},
        "inputSchema": {"properties": {"card_number": {"type": "string"}}},
        "outputSchema": {"properties": {"trips": {"items": {"properties": {"updatedAt": {"type": "integer"}}}}}},
    }
    found = {(f.level, f.rule) for f in profile(Snapshot(url="https://x/mcp", tools=[tool], resources=[]), "claude")}
    assert found == {
        ("error", "steering"),
        ("error", "sensitive"),
        ("warning", "minimal"),
        ("error", "claude-hints"),
        ("error", "title"),
    }
