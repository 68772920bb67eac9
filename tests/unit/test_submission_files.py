"""`make submission`'s files, from each app's declarations: OpenAI's v1 import shape field by field, a server.json the
MCP Registry's schema accepts, a Claude listing with at least three examples; and a listing past any limit is refused
with one sentence per limit broken."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import jsonschema
import pytest
from widget_mcp.apps.books import AppContext, load_books
from widget_mcp.apps.registry import APPS
from widget_mcp.publishing.__main__ import ROOT, main
from widget_mcp.publishing.limits import violations
from widget_mcp.publishing.submission import (
    SERVER_SCHEMA,
    SERVER_SCHEMA_URL,
    claude_listing,
    registry_problems,
    server_schema,
)
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit.listing import CATEGORIES
from widget_mcp.toolkit.tools import ToolBook

BOOKS = dict(zip(APPS, load_books(AppContext(Settings(), InMemoryDocumentStore()), APPS), strict=True))
LISTED = {entry.rsplit(".", 1)[-1]: book for entry, book in BOOKS.items() if book.listing is not None}
URL = "https://abc123.execute-api.us-east-1.amazonaws.com/mcp"


@pytest.mark.parametrize("app", sorted(LISTED))
def test_every_listed_app_writes_files_in_each_directorys_shape(app: str, tmp_path: Path) -> None:
    assert (
        main([app, "--url", URL, "--name", f"io.github.widget-mcp/{app}", "--out", str(tmp_path), "--no-screenshots"])
        == 0
    )
    book = LISTED[app]
    submission = json.loads((tmp_path / "chatgpt-app-submission.json").read_text())
    assert set(submission) == {"$schema", "schema_version", "app_info", "tools", "test_cases", "negative_test_cases"}
    assert submission["schema_version"] == 1
    assert set(submission["app_info"]) == {"display_name", "subtitle", "description", "category"}
    assert submission["app_info"]["category"] in CATEGORIES
    visible = {name for name, spec in book.tools.items() if spec.visibility != "private"}
    assert set(submission["tools"]) == visible
    for name, entry in submission["tools"].items():
        spec = book.tools[name]
        assert entry["annotations"] == {
            "readOnlyHint": spec.read_only,
            "openWorldHint": spec.open_world,
            "destructiveHint": spec.destructive,
        }
        assert set(entry["justifications"]) == {
            "read_only_justification",
            "open_world_justification",
            "destructive_justification",
        }
        assert all(sentence.strip() for sentence in entry["justifications"].values())
    case_keys = {"description", "user_prompt", "file_attachment_urls", "tools_triggered", "expected_output",
                 "expected_output_url"}  # fmt: skip
    assert (len(submission["test_cases"]), len(submission["negative_test_cases"])) == (5, 3)
    for case in submission["test_cases"]:
        assert set(case) == case_keys
        assert case["tools_triggered"]
        assert set(case["tools_triggered"].split(", ")) <= visible
    assert all(set(c) == case_keys and c["tools_triggered"] is None for c in submission["negative_test_cases"])

    registry = json.loads((tmp_path / "server.json").read_text())
    jsonschema.Draft7Validator(server_schema()).validate(registry)
    assert registry_problems(registry) == []
    assert registry["$schema"] == server_schema()["$id"]
    assert registry["remotes"] == [{"type": "streamable-http", "url": URL}]

    page = (tmp_path / "claude-listing.md").read_text()
    assert page.count("\n### ") >= 3
    assert all(f"`{name}`" in page for name in visible)


# the digest other publishers pin for the registry's published 2025-12-11 schema (schemas/README.md)
PUBLISHED_SCHEMA_SHA256 = "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0"


def test_the_vendored_registry_schema_is_the_published_file_byte_for_byte() -> None:
    assert hashlib.sha256(SERVER_SCHEMA.read_bytes()).hexdigest() == PUBLISHED_SCHEMA_SHA256
    assert server_schema()["$id"] == SERVER_SCHEMA_URL
    assert server_schema()["$schema"] == "http://json-schema.org/draft-07/schema#"


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        ("name", "no-namespace", "name"),
        ("description", "D" * 101, "description"),
        ("websiteUrl", "support page", "websiteUrl"),
        ("remotes", [{"type": "streamable-http", "url": "ftp://mcp.example.com/mcp"}], "remotes[0].url"),
        ("remotes", [{"type": "websocket", "url": "https://mcp.example.com/mcp"}], "remotes[0].type"),
    ],
)
def test_an_entry_the_registry_schema_refuses_is_reported_naming_the_field(
    field: str, value: object, named: str
) -> None:
    entry = {"$schema": SERVER_SCHEMA_URL, "name": "io.github.example/chess", "description": "Chess", "version": "1"}
    assert registry_problems(entry) == []
    problems = registry_problems({**entry, field: value})
    assert len(problems) == 1
    assert problems[0].startswith(f"server.json: {named} is refused by the MCP Registry's schema")


def test_make_submission_with_a_name_the_registry_refuses_fails_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app = sorted(LISTED)[0]
    assert main([app, "--url", URL, "--name", "no-namespace", "--out", str(tmp_path), "--no-screenshots"]) == 1
    assert "server.json: name is refused" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def _broken(book: ToolBook) -> ToolBook:
    assert book.listing is not None
    broken = ToolBook()
    broken.tools = dict(book.tools)
    broken.listing = dataclasses.replace(
        book.listing,
        name="N" * 31,
        subtitle="S" * 31,
        description="D" * 4001,
        category="GAMES",
        logo="docs/logos/missing.svg",
        starter_prompts=("P" * 129, "a", "b", "c"),
    )
    broken.review_cases = book.review_cases[:4]
    broken.negative_cases = book.negative_cases[:2]
    return broken


def test_a_listing_past_every_limit_is_refused_with_one_sentence_per_limit() -> None:
    problems = violations("chess", _broken(LISTED["chess"]), ROOT)
    expected = ("name is 31", "subtitle is 31", "description is 4001", "'GAMES'", "logo", "4 starter prompts",
                "is 129 characters", "4 positive", "2 negative")  # fmt: skip
    assert len(problems) == len(expected)
    for fragment, problem in zip(expected, problems, strict=True):
        assert fragment in problem
        assert problem.endswith(".")


def test_a_tool_without_justifications_or_a_true_hint_is_refused() -> None:
    book = _broken(LISTED["chess"])
    spec = book.tools["chess_move"]
    book.tools["chess_move"] = dataclasses.replace(spec, justify=None, destructive=False)
    problems = [p for p in violations("chess", book, ROOT) if p.startswith("chess_move")]
    assert problems == [
        "chess_move gives no hint justifications (justify= on its declaration).",
        "chess_move is neither read-only nor destructive; Claude's directory asks for one of them.",
    ]


def _framing(book: ToolBook, reason: str) -> ToolBook:
    """The book with its first widget declaring a frame domain, with `reason` (on every tool that shows it)."""
    assert book.listing is not None
    first = next(s.widget for s in book.tools.values() if s.widget is not None)
    framed = dataclasses.replace(first, frame_domains=("https://maps.example.com",), frame_reason=reason)
    framing = ToolBook()
    framing.tools = {
        name: dataclasses.replace(spec, widget=framed) if spec.widget == first else spec
        for name, spec in book.tools.items()
    }
    framing.listing, framing.review_cases, framing.negative_cases = book.listing, book.review_cases, book.negative_cases
    return framing


def test_a_widget_that_frames_another_site_without_a_reason_is_refused_naming_it_and_with_one_is_listed() -> None:
    app = next(app for app, book in sorted(LISTED.items()) if any(s.widget for s in book.tools.values()))
    assert violations(app, LISTED[app], ROOT) == []

    silent = violations(app, _framing(LISTED[app], ""), ROOT)
    reasoned = _framing(LISTED[app], "Shows the venue on an embedded map.")

    assert len(silent) == 1
    assert "frames https://maps.example.com without a reason" in silent[0]
    assert violations(app, reasoned, ROOT) == []
    page = claude_listing(reasoned, url=URL)
    assert "| https://maps.example.com | Shows the venue on an embedded map. |" in page
