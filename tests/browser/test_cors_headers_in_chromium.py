"""What a page on a listed browser origin may read of `/mcp`'s replies, as Chromium enforces it: a browser hides every
response header CORS does not expose, so a widget told `rate_limited` could not read when to retry without this."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from clocks import mid_window
from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from playwright.sync_api import Page
from servers import serve
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit.limits import CallLimiter, RateLimit
from widget_mcp.wiring import build_app, build_core

CALL_TWICE = """async (url) => {
  const body = JSON.stringify({jsonrpc: "2.0", id: 1, method: "tools/call", params: {name: "chess_list_games"}});
  const headers = {"content-type": "application/json", accept: "application/json"};
  const replies = [];
  for (const _ of [1, 2]) {
    const reply = await fetch(url, {method: "POST", headers, body});
    replies.push({retryAfter: reply.headers.get("retry-after"), answer: await reply.json()});
  }
  return replies;
}"""


@pytest.fixture(scope="module")
def host_page() -> Iterator[str]:
    """A web-based MCP host's page, on an origin of its own (another loopback port)."""
    app = FastAPI()
    app.get("/")(lambda: HTMLResponse("<!doctype html><title>host</title>"))
    with serve(app) as origin:
        yield origin


@pytest.fixture(scope="module")
def mcp_url(host_page: str) -> Iterator[str]:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("POWERTOOLS_METRICS_DISABLED", "true")
        settings = Settings(
            allowed_hosts=("127.0.0.1:*",), cors_origins=(host_page,), table_name="unused", rate_limit_calls=1
        )
        core = build_core(settings, store=InMemoryDocumentStore())
    # Both calls in one window of the limit, wherever the wall clock stands.
    core.runtime.limiter = CallLimiter(core.store, RateLimit(1, settings.rate_limit_window_seconds), mid_window(60))
    with serve(build_app(core)) as base:
        yield f"{base}/mcp"


def test_a_page_on_a_listed_origin_reads_retry_after_from_a_rate_limited_answer(
    page: Page, host_page: str, mcp_url: str
) -> None:
    page.goto(f"{host_page}/")

    first, second = page.evaluate(CALL_TWICE, mcp_url)

    assert "error" not in first["answer"]["result"].get("_meta", {}), first
    assert first["retryAfter"] is None
    error: dict[str, Any] = second["answer"]["result"]["_meta"]["error"]
    assert error["code"] == "rate_limited"
    assert second["retryAfter"] == str(error["retryAfter"])
