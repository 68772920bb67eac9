"""The submission files for one app (`make submission APP=chess`): OpenAI's v1 import file, the MCP Registry's
server.json and a Claude listing page, built from the app's declarations (toolkit/listing.py)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jsonschema
from jsonschema.exceptions import ValidationError

import widget_mcp
from widget_mcp.publishing.limits import framing_widgets, model_visible
from widget_mcp.toolkit.listing import ReviewCase
from widget_mcp.toolkit.tools import ToolBook, ToolSpec

OPENAI_SCHEMA_URL = "https://developers.openai.com/apps-sdk/schemas/chatgpt-app-submission.v1.json"
SERVER_SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
SERVER_SCHEMA = Path(__file__).with_name("schemas") / "server.schema.json"
REGISTRY_DESCRIPTION = 100
_URI_FORMAT = jsonschema.FormatChecker()


@_URI_FORMAT.checks("uri")
def _absolute_uri(value: object) -> bool:
    # jsonschema checks "uri" only with an optional package; the registry wants an absolute URL here
    if not isinstance(value, str):
        return True
    parts = urlsplit(value)
    return bool(parts.scheme and parts.netloc) and not any(c.isspace() for c in value)


@cache
def server_schema() -> dict[str, Any]:
    """The MCP Registry's published schema (schemas/README.md says which and from where)."""
    loaded: dict[str, Any] = json.loads(SERVER_SCHEMA.read_text())
    return loaded


def _field(error: ValidationError) -> str:
    path = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in error.absolute_path)
    return path.lstrip(".") or "the entry"


def _cause(error: ValidationError) -> ValidationError:
    # an anyOf failure names the object; the branch that failed least says which of its fields is wrong
    while error.context:
        branches: dict[object, list[ValidationError]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        closest = min(branches.values(), key=len)
        error = max(closest, key=lambda sub: len(sub.absolute_path))
    return error


def registry_problems(entry: Mapping[str, Any]) -> list[str]:
    """One sentence per field the registry's schema refuses, naming the field, in the draft the schema declares."""
    schema = server_schema()
    validator = jsonschema.validators.validator_for(schema)(schema, format_checker=_URI_FORMAT)
    problems = []
    for error in sorted(validator.iter_errors(entry), key=lambda e: [str(p) for p in e.absolute_path]):
        cause = _cause(error)
        problems.append(f"server.json: {_field(cause)} is refused by the MCP Registry's schema: {cause.message}.")
    return problems


def _visible_tools(book: ToolBook, case: ReviewCase) -> str:
    visible = {spec.name for spec in model_visible(book)}
    return ", ".join(tool for tool in case.tools_triggered if tool in visible)


def _tool_entry(spec: ToolSpec) -> dict[str, Any]:
    assert spec.justify is not None  # limits.py refuses a tool without them first
    return {
        "annotations": {
            "readOnlyHint": spec.read_only,
            "openWorldHint": spec.open_world,
            "destructiveHint": spec.destructive,
        },
        "justifications": {
            "read_only_justification": spec.justify.read_only,
            "open_world_justification": spec.justify.open_world,
            "destructive_justification": spec.justify.destructive,
        },
    }


def chatgpt_submission(book: ToolBook) -> dict[str, Any]:
    """The import file in the shape of OpenAI's `chatgpt-app-submission.v1.json`."""
    assert book.listing is not None
    listing = book.listing
    return {
        "$schema": OPENAI_SCHEMA_URL,
        "schema_version": 1,
        "app_info": {
            "display_name": listing.name,
            "subtitle": listing.subtitle,
            "description": listing.description,
            "category": listing.category,
        },
        "tools": {spec.name: _tool_entry(spec) for spec in model_visible(book)},
        "test_cases": [
            {
                "description": case.description,
                "user_prompt": case.prompt,
                "file_attachment_urls": None,
                "tools_triggered": _visible_tools(book, case),
                "expected_output": case.expected_output,
                "expected_output_url": None,
            }
            for case in book.review_cases
        ],
        "negative_test_cases": [
            {
                "description": case.description,
                "user_prompt": case.prompt,
                "file_attachment_urls": None,
                "tools_triggered": None,
                "expected_output": case.expected_output,
                "expected_output_url": None,
            }
            for case in book.negative_cases
        ],
    }


def server_json(book: ToolBook, *, name: str, url: str, website: str | None = None) -> dict[str, Any]:
    """The MCP Registry entry: one `streamable-http` remote; `registry_problems` checks it against the schema."""
    assert book.listing is not None
    description = book.listing.subtitle[:REGISTRY_DESCRIPTION]
    entry: dict[str, Any] = {
        "$schema": SERVER_SCHEMA_URL,
        "name": name,
        "title": book.listing.name,
        "description": description,
        "version": widget_mcp.__version__,
        "remotes": [{"type": "streamable-http", "url": url}],
    }
    if website:
        entry["websiteUrl"] = website
    return entry


def claude_listing(
    book: ToolBook, *, url: str, pages: Mapping[str, str] | None = None, screenshots: Sequence[str] = ()
) -> str:
    """The connector directory's listing page: what it does, its tools and their hints, usage examples, the legal
    pages' URLs and the screenshots."""
    assert book.listing is not None
    listing = book.listing
    lines = [f"# {listing.name}", "", f"_{listing.subtitle}_", "", listing.description, "", f"Server URL: `{url}`", ""]
    for page, page_url in (pages or {}).items():
        lines.append(f"- {page.title()}: {page_url}")
    if pages:
        lines.append("")
    lines += ["## Tools", "", "| tool | title | read-only | destructive | open world |", "|---|---|---|---|---|"]
    for spec in model_visible(book):
        lines.append(f"| `{spec.name}` | {spec.title} | {spec.read_only} | {spec.destructive} | {spec.open_world} |")
    framing = framing_widgets(book)
    if framing:
        lines += ["", "## Embedded sites", "", "| widget | frames | why |", "|---|---|---|"]
        lines += [f"| {w.name} | {', '.join(w.frame_domains)} | {w.frame_reason} |" for w in framing]
    lines += ["", "## Usage examples", ""]
    for number, case in enumerate(book.review_cases, start=1):
        lines += [f"### {number}. {case.description}", "", f"> {case.prompt}", ""]
        lines += [f"Tools: {', '.join(f'`{t}`' for t in case.tools_triggered)}. {case.expected_output}", ""]
    if screenshots:
        lines += ["## Screenshots", ""]
        lines += [f"![{name}](screenshots/{name})" for name in screenshots]
        lines.append("")
    return "\n".join(lines)
