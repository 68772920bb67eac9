"""`python -m widget_mcp.readiness`: the real local server passes, a deliberately broken one is told what is wrong."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from broken_app_server import build_broken_app
from widget_mcp.readiness.__main__ import main
from widget_mcp.readiness.rules import Snapshot, check
from widget_mcp.settings import Settings
from widget_mcp.wiring import build_app, build_core

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "functional"))
from servers import serve

CDN = "https://d111111abcdef8.cloudfront.net/widgets"


def _local_url(widget_domain: str | None) -> Iterator[str]:
    settings = Settings(allowed_hosts=("127.0.0.1:*",), widget_base_url=CDN, widget_domain=widget_domain)
    with serve(build_app(build_core(settings, concurrent=True))) as url:
        yield f"{url}/mcp"


@pytest.fixture
def local_url(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    yield from _local_url(None)


@pytest.fixture
def submittable_url(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    yield from _local_url("https://widgets.example.com")


@pytest.fixture
def broken_url() -> Iterator[str]:
    with serve(build_broken_app()) as url:
        yield f"{url}/mcp"


def _rules(output: str, level: str) -> set[tuple[str, str]]:
    rows = [line.split() for line in output.splitlines() if line.startswith(level)]
    return {(row[2], row[3]) for row in rows}  # (subject name, rule)


def test_the_local_server_passes_with_only_the_submission_warning(
    local_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([local_url]) == 0
    out = capsys.readouterr().out
    assert "0 error(s)" in out
    assert {rule for _, rule in _rules(out, "warning")} == {"widgetDomain"}


def test_for_submission_a_missing_widget_domain_is_an_error(local_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([local_url, "--submission"]) == 1
    assert {rule for _, rule in _rules(capsys.readouterr().out, "error")} == {"widgetDomain"}


def test_with_a_widget_domain_the_local_server_is_ready_for_submission(
    submittable_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([submittable_url, "--submission"]) == 0
    assert "0 error(s), 0 warning(s)" in capsys.readouterr().out


def test_a_broken_server_gets_an_error_for_each_broken_rule(
    broken_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([broken_url, "--local"]) == 1
    out = capsys.readouterr().out
    errors = _rules(out, "error")
    assert {
        ("no_hints", "hints"),
        ("chatty", "invocation"),
        ("split_templates", "template"),
        ("private_but_model", "visibility"),
        ("ui://widget/board-0123456789ab.html", "mimeType"),
        ("ui://widget/board-0123456789ab.html", "csp"),
    } <= errors
    assert ("no_output_schema", "outputSchema") in _rules(out, "warning")
    assert ("split_templates", "versioned") in _rules(out, "warning")
    assert "is a wildcard" in out
    assert "openai/widgetCSP is missing" in out
    assert "https://evil.example.net/board.js but its origin is not in resourceDomains" in out
    assert "ui.csp.resourceDomains ['https://d" not in out  # the second template differs from itself, not the first
    assert "ui.csp.resourceDomains ['https://cdn.example.com'] and openai/widgetCSP.resource_domains [] differ" in out


def test_an_unreachable_endpoint_exits_2_with_one_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["http://127.0.0.1:9/mcp"]) == 2
    assert capsys.readouterr().err == (
        "cannot check http://127.0.0.1:9/mcp: nothing answered at 127.0.0.1 (connection refused or unreachable)\n"
    )


@pytest.fixture
def not_mcp() -> Iterator[str]:
    async def plain(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 404, "headers": [(b"content-type", b"text/html")]})
        await send({"type": "http.response.body", "body": b"<h1>Not Found</h1>"})

    with serve(plain) as url:
        yield url


def test_a_url_that_speaks_no_mcp_exits_2_saying_so(not_mcp: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([f"{not_mcp}/"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cannot check {not_mcp}/: it does not answer as an MCP endpoint (")
    assert err.endswith("the URL should be the server's MCP path, e.g. https://<api>/mcp\n")


def test_a_tls_failure_exits_2_naming_the_handshake(not_mcp: str, capsys: pytest.CaptureFixture[str]) -> None:
    https = not_mcp.replace("http://", "https://")
    assert main([f"{https}/mcp"]) == 2
    assert capsys.readouterr().err.startswith(f"cannot check {https}/mcp: the TLS handshake with 127.0.0.1 failed (")


def test_a_plain_http_remote_endpoint_is_an_error() -> None:
    findings = check(Snapshot(url="http://example.com/mcp", tools=[], resources=[]), for_submission=True)
    assert {(f.level, f.rule) for f in findings} == {("error", "https"), ("error", "tools")}
