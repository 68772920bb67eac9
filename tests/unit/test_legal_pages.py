"""The legal pages are written from the data inventory: every served app's declared items with the TTLs its settings
give, the deployment's logs, access logs with source addresses, rate counters and backups, AWS as processor, and the
erase and export tools only where served; text from declarations is escaped; `make dev` serves them at /legal/."""

from __future__ import annotations

import html
import re

import pytest
from starlette.testclient import TestClient
from widget_mcp.local.legal_routes import legal_routes
from widget_mcp.publishing.legal import (
    ERASE_TOOL,
    EXPORT_TOOL,
    PAGES,
    Deployment,
    legal_pages,
    legal_urls,
    privacy_page,
)
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit.inventory import StoredData
from widget_mcp.toolkit.tools import ToolBook
from widget_mcp.wiring import build_books


def _text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def test_the_privacy_page_lists_every_served_apps_items_with_the_ttls_its_settings_give() -> None:
    settings = Settings(chess_finished_ttl_days=11, chess_idle_ttl_days=22, forms_ttl_days=3)
    books = build_books(settings, InMemoryDocumentStore())
    declared = [item for book in books for item in book.stored]
    assert declared, "the reference apps declare what they store"
    page = _text(privacy_page(books, Deployment()))
    for item in declared:
        assert item.what in page
        assert item.kept in page
    assert "11 days" in page
    assert "3 days" in page


def test_the_deployments_own_records_follow_its_constants() -> None:
    page = _text(privacy_page([], Deployment(log_retention_days=90, rate_window_seconds=45, sign_in=True)))
    assert "Access logs" in page
    assert "source IP address" in page
    assert page.count("90 days, then deleted by CloudWatch Logs") == 2
    assert "90 seconds (two 45-second windows)" in page
    assert "35 days, rolling" in page
    assert "Amazon Web Services" in page
    assert "Cognito" in page


def test_without_a_rate_limit_or_sign_in_the_page_claims_neither() -> None:
    page = _text(privacy_page([], Deployment(rate_limited=False)))
    assert "Rate counters" not in page
    assert "Cognito" not in page


def test_the_erase_and_export_tools_are_offered_only_where_served() -> None:
    books = build_books(Settings(), InMemoryDocumentStore())
    served = {name for book in books for name in book.tools}
    page = _text(privacy_page(books, Deployment()))
    for tool in (ERASE_TOOL, EXPORT_TOOL):
        assert (tool in page) == (tool in served)
    mine = ToolBook()
    mine.tools = {ERASE_TOOL: next(iter(books[0].tools.values()))}
    assert ERASE_TOOL in _text(privacy_page([mine], Deployment()))
    assert EXPORT_TOOL not in _text(privacy_page([mine], Deployment()))


def test_declared_text_and_the_publisher_are_escaped() -> None:
    book = ToolBook()
    book.stored.append(StoredData("<script>x</script>", "notes", "to keep notes", "1 day"))
    pages = legal_pages([book], Deployment(publisher="A & <b>B</b>", contact="help@example.com"))
    assert set(pages) == {f"{page}.html" for page in PAGES}
    assert all("<script>x" not in text and "<b>B</b>" not in text for text in pages.values())
    assert "mailto:help@example.com" in pages["support.html"]


def test_a_stored_item_without_its_retention_is_refused() -> None:
    with pytest.raises(ValueError, match="kept"):
        StoredData("Notes", "text", "to keep notes", " ")


def test_the_urls_sit_under_legal_on_the_given_origin() -> None:
    assert legal_urls("https://d1.cloudfront.net/") == {p: f"https://d1.cloudfront.net/legal/{p}.html" for p in PAGES}


def test_make_dev_serves_each_page_as_html_and_404_for_others() -> None:
    from starlette.applications import Starlette

    # The Host allowlist is stated: tests/lambda/conftest.py sets the process's ALLOWED_HOSTS for the handler.
    settings = Settings(allowed_hosts=("127.0.0.1:*",))
    client = TestClient(Starlette(routes=legal_routes(settings)), base_url="http://127.0.0.1:8000")
    for page in PAGES:
        answer = client.get(f"/legal/{page}.html")
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/html")
    assert "Request logs" in client.get("/legal/privacy.html").text
    assert client.get("/legal/secrets.html").status_code == 404
