"""Every positive review case an app declares (toolkit/listing.py) is made against the local server through the
official MCP client, call by call, so what the directories' reviewers are promised is true. The cases come from the
registry's books: a new app's cases run here by declaration."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from form_keys import MCP_APPS, keep_key, keyed
from mcp import Client
from servers import serve
from tool_results import text_of
from widget_mcp.apps.books import AppContext, load_books
from widget_mcp.apps.registry import APPS
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit.listing import REFERENCE_CLOSE, REFERENCE_OPEN, ReviewCase
from widget_mcp.wiring import build_app, build_core

SETTINGS = Settings(allowed_hosts=("127.0.0.1:*",), rate_limit_calls=0)
# The reviewer's host shows widgets: a case's widget calls (those in KEYED) are made as the widget makes them.

BOOKS = dict(zip(APPS, load_books(AppContext(SETTINGS, InMemoryDocumentStore()), APPS), strict=True))
CASES = [(app, index, case) for app, book in BOOKS.items() for index, case in enumerate(book.review_cases)]
# The tools a form's widget calls with the answer key its form came with (they take an `answerKey`).
KEYED = {
    name
    for book in BOOKS.values()
    for name, spec in book.tools.items()
    if "answerKey" in spec.input_schema.get("properties", {})
}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    core = build_core(SETTINGS, concurrent=True, store=InMemoryDocumentStore())
    with serve(build_app(core)) as base:
        yield f"{base}/mcp"


def _resolve(value: Any, seen: Mapping[str, Any]) -> Any:
    """`{{field}}` → that field of an earlier call's structuredContent in the same case."""
    if isinstance(value, str) and value.startswith(REFERENCE_OPEN) and value.endswith(REFERENCE_CLOSE):
        name = value[len(REFERENCE_OPEN) : -len(REFERENCE_CLOSE)]
        assert name in seen, f"{value} names no field of an earlier call's result"
        return seen[name]
    if isinstance(value, dict):
        return {k: _resolve(v, seen) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, seen) for v in value]
    return value


def _contains(actual: Any, expected: Any) -> bool:
    if isinstance(expected, Mapping):
        return isinstance(actual, Mapping) and all(k in actual and _contains(actual[k], v) for k, v in expected.items())
    return bool(actual == expected)


def test_every_app_listed_in_the_directories_declares_cases_to_run() -> None:
    listed = {app for app, book in BOOKS.items() if book.listing is not None}
    assert listed, "no app of the registry declares a listing: the cases below check nothing"
    assert listed <= {app for app, _, _ in CASES}


@pytest.mark.parametrize(("app", "index", "case"), CASES, ids=[f"{a.rsplit('.', 1)[-1]}-{i}" for a, i, _ in CASES])
async def test_each_positive_review_case_makes_its_calls_and_gets_what_it_promises(
    url: str, app: str, index: int, case: ReviewCase
) -> None:
    seen: dict[str, Any] = {}
    async with Client(url, mode="legacy", extensions=[MCP_APPS]) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        for call in case.calls:
            assert call.tool in listed, f"{case.prompt!r}: {call.tool} is not served"
            arguments = _resolve(dict(call.arguments), seen)
            if call.tool in KEYED:  # as the form's widget sends it
                arguments = keyed(arguments)
            result = keep_key(await client.call_tool(call.tool, arguments))
            assert not result.is_error, f"{case.prompt!r}: {call.tool} failed: {text_of(result)}"
            structured = result.structured_content or {}
            assert _contains(structured, call.expect), f"{case.prompt!r}: {call.tool} returned {structured}"
            seen.update(structured)
