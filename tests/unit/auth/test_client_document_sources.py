"""The client documents' port: the fake and the real https source meet the same contract, so what the sign-in tests
prove with the fake holds for the deployment's fetch."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import pytest
from client_document_sources import FakeDocumentSource, Page, real_source, tls_server
from widget_mcp.auth.client_documents import MAX_DOCUMENT_BYTES, DocumentSource, DocumentUnavailable

GOOD = json.dumps({"client_id": "x", "redirect_uris": ["https://claude.ai/api/mcp/auth_callback"]}).encode()
PAGES = {
    "/client.json": Page(body=GOOD),
    "/charset.json": Page(content_type="application/json; charset=utf-8", body=GOOD),
    "/huge.json": Page(body=b'{"pad": "' + b"x" * (MAX_DOCUMENT_BYTES + 10) + b'"}'),
    "/page.html": Page(content_type="text/html", body=b"<html></html>"),
    "/moved.json": Page(status=302, location="https://10.0.0.5/client.json"),
    "/gone.json": Page(status=404, body=b"{}"),
}


@dataclass(frozen=True)
class Served:
    source: DocumentSource
    url: Callable[[str, str], str]  # (host, path) → the URL the source is asked for


@pytest.fixture(params=["fake", "real"])
async def served(request: pytest.FixtureRequest) -> AsyncIterator[Served]:
    if request.param == "fake":
        pages = {f"https://docs.test{path}": page for path, page in PAGES.items()}
        addresses = {"docs.test": ["93.184.216.34"], "private.test": ["10.0.0.5"], "metadata.test": ["169.254.169.254"]}
        yield Served(FakeDocumentSource(pages, addresses), lambda host, path: f"https://{host}{path}")
        return
    with tls_server(PAGES) as (port, context):
        addresses = {"docs.test": ["127.0.0.1"], "private.test": ["10.0.0.5"], "metadata.test": ["169.254.169.254"]}
        yield Served(real_source(addresses, context), lambda host, path: f"https://{host}:{port}{path}")


async def test_a_document_served_as_json_comes_back_as_its_bytes(served: Served) -> None:
    assert await served.source.fetch(served.url("docs.test", "/client.json")) == GOOD
    assert await served.source.fetch(served.url("docs.test", "/charset.json")) == GOOD


@pytest.mark.parametrize(
    ("host", "path", "reason"),
    [
        ("docs.test", "/huge.json", "limit"),
        ("docs.test", "/page.html", "not application/json"),
        ("docs.test", "/moved.json", "redirect"),
        ("docs.test", "/gone.json", "404"),
        ("private.test", "/client.json", "not public"),
        ("metadata.test", "/client.json", "not public"),
        ("nowhere.test", "/client.json", "does not resolve"),
    ],
)
async def test_a_document_past_a_bound_is_refused_with_the_reason(
    served: Served, host: str, path: str, reason: str
) -> None:
    with pytest.raises(DocumentUnavailable, match=reason):
        await served.source.fetch(served.url(host, path))


async def test_only_https_is_fetched(served: Served) -> None:
    with pytest.raises(DocumentUnavailable, match="only https"):
        await served.source.fetch(served.url("docs.test", "/client.json").replace("https://", "http://"))
