"""A small app for the tests of prompts, resources, non-text content and header arguments, written the way a user
writes one: the toolkit's public API only. Tests serve it beside the registry's apps (`served_with_library`)."""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING

import pytest
from pydantic import BaseModel, ConfigDict, Field
from widget_mcp.toolkit import (
    DISPLAY_HOST,
    Elicitation,
    Elicited,
    EmbeddedResource,
    Image,
    PromptCall,
    PromptMessage,
    ResourceLink,
    ToolBook,
    ToolCall,
    ToolError,
    ToolResult,
    complete_from,
)

if TYPE_CHECKING:
    from widget_mcp.apps.books import AppContext

MODULE = "library_app"
# Any bytes do: the toolkit sends what it is given, base64-encoded.
COVER = b"\x89PNG\r\n\x1a\n cover"
LOGO = bytes(range(256))
CATALOG = "Dune; Emma; Ulysses"
BOOKS = {"9780441013593": "Dune", "9780141439587": "Emma"}
GENRES = ["science fiction", "satire", "saga", "romance"]
# How many times each resource function ran: the answer cache must not keep what a template reads.
READS: Counter[str] = Counter()
# How many times each task tool's work ran to its end.
RUNS: Counter[str] = Counter()

book = ToolBook()


class CoverInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    isbn: str = Field(max_length=13, pattern=r"^[0-9X]{10,13}$")


class CoverOutput(BaseModel):
    isbn: str


@book.tool(
    name="library_cover",
    title="Show a cover",
    description="Shows a book's cover and links to its record.",
    output=CoverOutput,
    read_only=True,
    destructive=False,
    open_world=False,
    invoking="Finding the cover…",
    invoked="Found the cover",
    widget=DISPLAY_HOST,
)
def library_cover(args: CoverInput, call: ToolCall) -> ToolResult:
    call.emit("text", {"text": args.isbn}, fallback=f"ISBN {args.isbn}")
    return ToolResult(
        structured=CoverOutput(isbn=args.isbn),
        narration="Here is the cover.",
        content=[
            Image(COVER, "image/png"),
            ResourceLink(f"library://books/{args.isbn}", name="record", mime_type="application/json"),
        ],
    )


class ShelfInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    shelf: str = Field(max_length=40, json_schema_extra={"x-mcp-header": "Shelf"})


class ShelfOutput(BaseModel):
    shelf: str


@book.tool(
    name="library_shelf",
    title="Open a shelf",
    description="Opens a shelf; the shelf travels in the Mcp-Param-Shelf header too, for routing.",
    output=ShelfOutput,
    read_only=True,
    destructive=False,
    open_world=False,
    invoking="Opening…",
    invoked="Opened",
)
def library_shelf(args: ShelfInput, call: ToolCall) -> ToolResult:
    return ToolResult(structured=ShelfOutput(shelf=args.shelf), narration=f"Shelf {args.shelf} is open.")


class RecommendArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")

    genre: str = Field(max_length=40, description="What kind of book")
    mood: str | None = Field(default=None, max_length=40, description="How the reader feels")


@book.prompt(
    name="library_recommend",
    title="Recommend a book",
    description="Asks for a recommendation in a genre, with the catalog attached.",
    complete={"genre": complete_from(GENRES)},
)
def library_recommend(args: RecommendArguments) -> list[PromptMessage]:
    mood = f" for a {args.mood} reader" if args.mood else ""
    return [
        PromptMessage("user", f"Recommend a {args.genre} book{mood}."),
        PromptMessage("user", EmbeddedResource("library://catalog", "text/plain", text=CATALOG)),
    ]


@book.prompt(name="library_judge_cover", title="Judge a cover", description="Asks what a cover says.")
async def library_judge_cover() -> list[PromptMessage]:
    return [PromptMessage("user", Image(COVER, "image/png")), PromptMessage("assistant", "It says: read me.")]


class GenreArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")

    genre: str = Field(max_length=40, description="What kind of book")


class Reader(BaseModel):  # the form the prompt asks for
    mood: str = Field(title="How do you feel?")


@book.prompt(
    name="library_suggest",
    title="Suggest for my mood",
    description="Asks how the reader feels, then asks for a book in a genre that suits it.",
)
def library_suggest(args: GenreArguments, call: PromptCall) -> list[PromptMessage]:
    ask = Elicitation(f"Before I suggest a {args.genre} book: how do you feel?", Reader)
    if not call.can_ask(ask):  # a client that cannot answer gets the prompt without the mood
        return [PromptMessage("user", f"Suggest a {args.genre} book.")]
    answer = call.ask(ask, key="reader")
    mood = Reader.model_validate(answer.content).mood if answer.accepted else "any"
    return [PromptMessage("user", f"Suggest a {args.genre} book for a {mood} reader.")]


@book.resource(
    uri="library://catalog",
    name="catalog",
    title="Catalog",
    description="Every title, as text.",
    mime_type="text/plain",
)
def catalog() -> str:
    READS["catalog"] += 1
    return CATALOG


@book.resource(
    uri="library://logo.png", name="logo", title="Logo", description="The library's logo.", mime_type="image/png"
)
async def logo() -> bytes:
    return LOGO


@book.resource_template(
    uri_template="library://books/{isbn}",
    name="book",
    title="Book record",
    description="A book's record, as JSON.",
    mime_type="application/json",
    complete={"isbn": complete_from(BOOKS)},
)
def book_record(isbn: str) -> str | None:
    READS["book"] += 1
    title = BOOKS.get(isbn)
    return None if title is None else json.dumps({"isbn": isbn, "title": title})


class CountInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    shelf: str = Field(default="all", max_length=40)


class CountOutput(BaseModel):
    shelf: str
    books: int


@book.tool(
    name="library_count",
    title="Count the books",
    description="Counts the books on a shelf; a long job, so it runs as a task when the client allows one.",
    output=CountOutput,
    read_only=True,
    destructive=False,
    open_world=False,
    invoking="Counting…",
    invoked="Counted",
    task_support="optional",
)
def library_count(args: CountInput, call: ToolCall) -> ToolResult:
    call.background()
    RUNS["library_count"] += 1
    count = CountOutput(shelf=args.shelf, books=len(BOOKS))
    return ToolResult(structured=count, narration=f"{count.books} books on {args.shelf}.")


class ReshelveInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    shelf: str = Field(max_length=40)


class ReshelveOutput(BaseModel):
    shelf: str
    by: str


CONFIRM = Elicitation("Reshelve every book?", {"type": "object", "properties": {"confirm": {"type": "boolean"}}})
NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
WHO = Elicitation("Who reshelves?", NAME_FORM)


@book.tool(
    name="library_reshelve",
    title="Reshelve a shelf",
    description="Reshelves a shelf, as a task only: it asks who does it and for a confirmation, at once.",
    output=ReshelveOutput,
    read_only=False,
    destructive=False,
    open_world=False,
    invoking="Reshelving…",
    invoked="Reshelved",
    task_support="required",
)
def library_reshelve(args: ReshelveInput, call: ToolCall) -> ToolResult:
    call.background()
    answers = call.ask_all({"confirm": CONFIRM, "who": WHO})
    confirm, who = answers["confirm"], answers["who"]
    if args.shelf == "crash":
        raise RuntimeError("the shelf fell over")
    if not (isinstance(confirm, Elicited) and confirm.content.get("confirm") is True):
        raise ToolError("Nothing was reshelved: the reshelving was not confirmed.", code="not_confirmed")
    name = who.content["name"] if isinstance(who, Elicited) else "?"
    RUNS["library_reshelve"] += 1
    return ToolResult(structured=ReshelveOutput(shelf=args.shelf, by=name), narration=f"{name} reshelved {args.shelf}.")


class LendInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    isbn: str = Field(max_length=13, pattern=r"^[0-9X]{10,13}$")


class LendOutput(BaseModel):
    isbn: str
    borrower: str


@book.tool(
    name="library_lend",
    title="Lend a book",
    description="Asks who borrows the book in the request, then records the loan as a task.",
    output=LendOutput,
    read_only=False,
    destructive=False,
    open_world=False,
    invoking="Lending…",
    invoked="Lent",
    task_support="required",
)
def library_lend(args: LendInput, call: ToolCall) -> ToolResult:
    borrower = str(call.ask(WHO, key="borrower").content.get("name", "nobody"))
    call.background()
    RUNS["library_lend"] += 1
    return ToolResult(structured=LendOutput(isbn=args.isbn, borrower=borrower), narration=f"Lent to {borrower}.")


def tool_book(context: AppContext) -> ToolBook:
    return book


@pytest.fixture
def served_with_library(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry serves this app after its own (the server builds its apps from `APPS`)."""
    from widget_mcp.apps import registry

    monkeypatch.setattr(registry, "APPS", (*registry.APPS, MODULE))
    READS.clear()
    RUNS.clear()
