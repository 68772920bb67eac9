"""docs/media.md's examples of content blocks, resources and prompts run as written, in order, in one app module."""

from __future__ import annotations

import json
from typing import Any

from readme_snippets import run_python_section
from widget_mcp.toolkit import ToolBook
from widget_mcp.toolkit.catalog import Catalog
from widget_mcp.toolkit.principal import ANONYMOUS


def readme_app() -> dict[str, Any]:
    return run_python_section("Images, audio, resources and prompts")


async def test_the_readme_examples_declare_a_tool_resources_a_template_and_a_prompt_that_work() -> None:
    app = readme_app()
    book: ToolBook = app["book"]
    cover = book.tools["library_cover"].handler(app["CoverIn"](isbn="9780441013593"), app["ToolCall"]("t", ANONYMOUS))
    wire = cover.to_wire([])  # type: ignore[union-attr]
    assert [block["type"] for block in wire["content"]] == [
        "text",
        "text",
        "image",
        "resource_link",
        "resource",
        "text",
    ]
    assert json.loads(wire["content"][1]["text"]) == wire["structuredContent"]
    catalog = Catalog([book])
    assert set(catalog.resources) == {"library://catalog", "library://logo.png"}
    record = await catalog.read("library://books/9780141439587")
    assert json.loads(record["contents"][0]["text"]) == {"isbn": "9780141439587", "title": "Emma"}
    prompt = await catalog.get_prompt("library_recommend", {"genre": "saga"})
    assert prompt["messages"][0]["content"]["text"] == "Recommend a saga book."
    genres = catalog.complete({"type": "ref/prompt", "name": "library_recommend"}, "genre", "s", {})
    assert genres["completion"]["values"] == ["science fiction", "satire", "saga"]
