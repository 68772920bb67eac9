"""Declaring prompts, resources, resource templates and header arguments: what is refused at import, what is
derived, and how the catalog answers."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, Field
from widget_mcp.toolkit import DeclarationError, PromptMessage, ToolBook, ToolCall, ToolResult, complete_from
from widget_mcp.toolkit.catalog import Catalog
from widget_mcp.toolkit.errors import CatalogError
from widget_mcp.toolkit.prompts import MAX_COMPLETIONS


class Topic(BaseModel):
    topic: str = Field(max_length=50, description="What about")
    tone: str | None = Field(default=None, max_length=20)


def prompt(book: ToolBook, name: str = "summarize", **extra: Any) -> Any:
    return book.prompt(name=name, title="Summarize", description="Summarizes a topic.", **extra)


def test_a_prompts_arguments_are_derived_from_its_model_with_required_and_descriptions() -> None:
    book = ToolBook()

    @prompt(book)
    def summarize(args: Topic) -> list[PromptMessage]:
        return [PromptMessage("user", args.topic)]

    assert book.prompts["summarize"].describe() == {
        "name": "summarize",
        "title": "Summarize",
        "description": "Summarizes a topic.",
        "arguments": [
            {"name": "topic", "required": True, "description": "What about"},
            {"name": "tone", "required": False},
        ],
    }


class NotText(BaseModel):
    count: int = Field(le=5)


class Uncapped(BaseModel):
    topic: str


@pytest.mark.parametrize(
    ("model", "problem"),
    [(NotText, "prompt arguments are strings; not count"), (Uncapped, "argument 'topic' is a string without")],
)
def test_a_prompt_argument_that_is_not_a_capped_string_is_refused_at_declaration(
    model: type[BaseModel], problem: str
) -> None:
    book = ToolBook()

    def handler(args: Any) -> list[PromptMessage]:
        return []

    handler.__annotations__["args"] = model
    with pytest.raises(DeclarationError, match=problem):
        prompt(book)(handler)


def test_a_completer_for_an_argument_the_prompt_does_not_have_is_refused() -> None:
    with pytest.raises(DeclarationError, match="completers for arguments it does not have: mood"):

        @prompt(ToolBook(), complete={"mood": complete_from(["calm"])})
        def summarize(args: Topic) -> list[PromptMessage]:
            return []


def test_completion_offers_matching_choices_in_order_at_most_one_hundred_with_the_total() -> None:
    book = ToolBook()
    many = [f"topic {n:03}" for n in range(150)]

    @prompt(book, complete={"topic": complete_from(["Paris", "park", "Lyon", *many])})
    def summarize(args: Topic) -> list[PromptMessage]:
        return []

    catalog = Catalog([book])
    ref = {"type": "ref/prompt", "name": "summarize"}
    assert catalog.complete(ref, "topic", "PA", {}) == {
        "completion": {"values": ["Paris", "park"], "total": 2, "hasMore": False}
    }
    capped = catalog.complete(ref, "topic", "topic", {})["completion"]
    assert (len(capped["values"]), capped["total"], capped["hasMore"]) == (MAX_COMPLETIONS, 150, True)
    with pytest.raises(CatalogError, match="Unknown prompt: other"):
        catalog.complete({"type": "ref/prompt", "name": "other"}, "topic", "", {})


def test_a_resource_template_serves_the_uris_it_matches_with_percent_decoded_variables() -> None:
    book = ToolBook()

    @book.resource_template(
        uri_template="notes://{owner}/{slug}.md",
        name="note",
        title="Note",
        description="A note.",
        mime_type="text/markdown",
    )
    def note(owner: str, slug: str) -> str:
        return f"{owner}:{slug}"

    template = book.resource_templates["notes://{owner}/{slug}.md"]
    assert template.variables == ("owner", "slug")
    assert template.match("notes://ann%20lee/plan.md") == {"owner": "ann lee", "slug": "plan"}
    assert template.match("notes://ann/deep/plan.md") is None  # a variable is one path segment
    assert template.match("notes://ann/plan.txt") is None
    assert template.listing() == {
        "uriTemplate": "notes://{owner}/{slug}.md",
        "name": "note",
        "title": "Note",
        "description": "A note.",
        "mimeType": "text/markdown",
    }


@pytest.mark.parametrize(
    ("uri_template", "parameters", "problem"),
    [
        ("notes://{owner}", ("who",), r"parameters \['who'\] must be the variables \['owner'\]"),
        ("notes://{+path}", ("path",), "only simple {name} variables"),
        ("notes://all", (), "needs at least one {variable}"),
        ("notes://{a}/{a}", ("a",), "a variable appears twice"),
    ],
)
def test_a_resource_template_whose_variables_and_function_disagree_is_refused(
    uri_template: str, parameters: tuple[str, ...], problem: str
) -> None:
    namespace: dict[str, Any] = {}
    exec(f"def read({', '.join(parameters)}): return ''", namespace)
    with pytest.raises(DeclarationError, match=problem):
        ToolBook().resource_template(
            uri_template=uri_template, name="n", title="N", description="D.", mime_type="text/plain"
        )(namespace["read"])


@pytest.mark.parametrize(
    ("uri", "mime_type", "problem"),
    [("no-scheme", "text/plain", "not an absolute URI"), ("docs://a", "plain", "not a media type")],
)
def test_a_resource_with_a_bad_uri_or_media_type_is_refused_at_declaration(
    uri: str, mime_type: str, problem: str
) -> None:
    with pytest.raises(DeclarationError, match=problem):
        ToolBook().resource(uri=uri, name="a", title="A", description="A.", mime_type=mime_type)(lambda: "")


def test_two_apps_declaring_one_prompt_or_resource_uri_are_refused_when_the_catalog_is_built() -> None:
    books = [ToolBook(), ToolBook()]
    for book in books:
        book.resource(uri="docs://a", name="a", title="A", description="A.", mime_type="text/plain")(lambda: "a")
    with pytest.raises(DeclarationError, match="two resources have this URI"):
        Catalog(books)
    with pytest.raises(DeclarationError, match="two resources have this URI"):
        Catalog(books[:1], reserved_uris=["docs://a"])


async def test_a_fixed_resource_is_read_with_a_public_hint_and_a_template_with_none() -> None:
    book = ToolBook()
    book.resource(uri="docs://a", name="a", title="A", description="A.", mime_type="text/plain")(lambda: "text")
    book.resource_template(
        uri_template="docs://b/{n}", name="b", title="B", description="B.", mime_type="application/octet-stream"
    )(lambda n: None if n == "0" else n.encode())
    catalog = Catalog([book])
    assert await catalog.read("docs://a") == {
        "contents": [{"uri": "docs://a", "mimeType": "text/plain", "text": "text"}],
        "ttlMs": 300_000,
        "cacheScope": "public",
    }
    assert await catalog.read("docs://b/7") == {
        "contents": [{"uri": "docs://b/7", "mimeType": "application/octet-stream", "blob": "Nw=="}],
        "ttlMs": 0,
        "cacheScope": "private",
    }
    with pytest.raises(CatalogError) as caught:
        await catalog.read("docs://b/0")
    assert (caught.value.kind, caught.value.subject) == ("not_found", "docs://b/0")
    assert catalog.is_fixed("docs://a")
    assert not catalog.is_fixed("docs://b/7")


class HeaderOut(BaseModel):
    ok: bool


def header_tool(book: ToolBook, model: type[BaseModel]) -> None:
    def handler(args: Any, call: ToolCall) -> ToolResult:
        return ToolResult(structured=HeaderOut(ok=True), narration="ok")

    handler.__annotations__["args"] = model
    book.tool(
        name="route",
        title="Route",
        description="Routes.",
        output=HeaderOut,
        read_only=True,
        destructive=False,
        open_world=False,
        invoking="a",
        invoked="b",
    )(handler)


class Region(BaseModel):
    region: str = Field(max_length=10, json_schema_extra={"x-mcp-header": "Region"})
    dry_run: bool = Field(default=False, json_schema_extra={"x-mcp-header": "Dry-Run"})


class NotAToken(BaseModel):
    region: str = Field(max_length=10, json_schema_extra={"x-mcp-header": "Region Name"})


class OnAList(BaseModel):
    regions: list[str] = Field(max_length=3, json_schema_extra={"x-mcp-header": "Regions"})


def test_header_arguments_are_declared_with_x_mcp_header_and_checked_by_the_sdks_rules() -> None:
    book = ToolBook()
    header_tool(book, Region)
    assert set(book.tools["route"].header_arguments) == {"Mcp-Param-Region", "Mcp-Param-Dry-Run"}
    assert book.tools["route"].input_schema["properties"]["region"]["x-mcp-header"] == "Region"
    with pytest.raises(DeclarationError, match="is not an RFC 9110 token"):
        header_tool(ToolBook(), NotAToken)
    with pytest.raises(DeclarationError, match="only permitted on integer/string/boolean"):
        header_tool(ToolBook(), OnAList)
