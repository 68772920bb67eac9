"""A tool declares which of its arguments are ids another tool's result makes (`ids=` on `book.tool`): published
in its `_meta`, checked against both tools' declarations, and never guessed from field names."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from pydantic import BaseModel, ConfigDict, Field
from widget_mcp.apps.books import AppContext, load_books
from widget_mcp.server import build_runtime
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit import ToolBook, ToolCall, ToolResult
from widget_mcp.toolkit.errors import DeclarationError
from widget_mcp.toolkit.id_sources import IDS_META, MAX_ID_CHAIN, makers_of
from widget_mcp.toolkit.model_schemas import json_schema
from widget_mcp.toolkit.runtime import ToolRuntime


class CreateIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(max_length=100, examples=["Lunch?"])


class Created(BaseModel):
    poll_id: str
    question: str  # echoes an input: not an id, whatever a guess from names would say


class VoteIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    poll_id: str = Field(max_length=32)
    question: str = Field(max_length=100)
    option: int = Field(ge=0, le=7)


def book_with(ids: Mapping[str, str] | None, *, producer: str = "create_poll") -> ToolBook:
    book = ToolBook()
    hints = {"read_only": False, "destructive": False, "open_world": False, "invoking": "…", "invoked": "Done"}

    @book.tool(name=producer, title="Create", description="Creates a poll.", output=Created, **hints)
    def create(args: CreateIn, call: ToolCall) -> ToolResult:
        return ToolResult(structured=Created(poll_id="p1", question=args.question), narration="Created.")

    @book.tool(name="vote", title="Vote", description="Votes.", output=Created, ids=ids, **hints)
    def vote(args: VoteIn, call: ToolCall) -> ToolResult:
        return ToolResult(structured=Created(poll_id=args.poll_id, question=args.question), narration="Voted.")

    return book


def runtime_of(book: ToolBook) -> ToolRuntime:
    return build_runtime(Settings(), [book])


def test_a_declared_id_is_published_in_the_tools_meta_and_only_there() -> None:
    tools = {t["name"]: t for t in runtime_of(book_with({"poll_id": "create_poll.poll_id"})).tool_list}
    assert tools["vote"]["_meta"][IDS_META] == {"poll_id": "create_poll.poll_id"}
    assert IDS_META not in tools["create_poll"]["_meta"]


def test_an_output_that_echoes_an_argument_makes_nothing_an_id_without_a_declaration() -> None:
    tools = {t["name"]: t for t in runtime_of(book_with(None)).tool_list}
    assert IDS_META not in tools["vote"]["_meta"]


@pytest.mark.parametrize(
    ("ids", "problem"),
    [
        ({"pollId": "create_poll.poll_id"}, "ids names 'pollId', which is not one of its arguments"),
        ({"option": "create_poll.poll_id"}, "ids names 'option', which is not a string argument"),
        ({"poll_id": "create_poll"}, "ids\\['poll_id'\\] is 'create_poll': spell it 'tool_name.outputField'"),
        ({"poll_id": "vote.poll_id"}, "names the tool itself"),
    ],
)
def test_a_declaration_that_names_no_argument_or_no_source_is_refused_when_declared(
    ids: dict[str, str], problem: str
) -> None:
    with pytest.raises(DeclarationError, match=problem):
        book_with(ids)


@pytest.mark.parametrize(
    ("ids", "producer", "problem"),
    [
        ({"poll_id": "make_poll.poll_id"}, "create_poll", "no served tool is called 'make_poll'"),
        ({"poll_id": "create_poll.pollId"}, "create_poll", "create_poll's output has no field 'pollId'"),
    ],
)
def test_a_declaration_whose_source_is_not_served_is_refused_when_the_server_is_built(
    ids: dict[str, str], producer: str, problem: str
) -> None:
    book = book_with(ids, producer=producer)
    with pytest.raises(DeclarationError, match=problem):
        runtime_of(book)


def test_every_served_tools_declared_ids_name_a_served_tool_whose_chain_of_makers_can_be_planned() -> None:
    specs = {s.name: s for b in load_books(AppContext(Settings(), InMemoryDocumentStore())) for s in b.tools.values()}
    declared = [(spec, source) for spec in specs.values() for source in spec.ids.values()]
    assert declared, "no served tool declares an id: the playground and the client matrix would plan no call"
    for spec, source in declared:
        assert source.field in json_schema(specs[source.tool].output_model)["properties"], (spec.name, source)
    for spec in specs.values():
        order = makers_of(specs, spec.name)
        # each maker comes after the makers of the ids it needs itself, so a client can make them in this order
        for at, source in enumerate(order):
            assert set(specs[source.tool].ids.values()) <= set(order[:at]), (spec.name, order)


class ItemIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    list_id: str = Field(max_length=32)
    text: str = Field(max_length=100, examples=["Milk"])


class CheckIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    list_id: str = Field(max_length=32)
    item_id: str = Field(max_length=32)


class ListIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    list_id: str | None = Field(default=None, max_length=32, description="A list to copy.")


class Made(BaseModel):
    list_id: str
    item_id: str


def chain_book(list_ids: Mapping[str, str] | None = None) -> ToolBook:
    """make_list -> add_item (takes the list) -> check_item (takes the list and the item): a chain two makers deep;
    `list_ids` replaces make_list's own declaration (to close a cycle)."""
    book = ToolBook()
    hints = {"read_only": False, "destructive": False, "open_world": False, "invoking": "…", "invoked": "Done"}
    made = Made(list_id="l1", item_id="i1")

    @book.tool(name="make_list", title="List", description="Makes a list.", output=Made, ids=list_ids, **hints)
    def make_list(args: ListIn, call: ToolCall) -> ToolResult:
        return ToolResult(structured=made, narration="Made.")

    @book.tool(
        name="add_item",
        title="Add",
        description="Adds an item.",
        output=Made,
        ids={"list_id": "make_list.list_id"},
        **hints,
    )
    def add_item(args: ItemIn, call: ToolCall) -> ToolResult:
        return ToolResult(structured=made, narration="Added.")

    @book.tool(
        name="check_item",
        title="Check",
        description="Checks an item.",
        output=Made,
        ids={"item_id": "add_item.item_id", "list_id": "make_list.list_id"},
        **hints,
    )
    def check_item(args: CheckIn, call: ToolCall) -> ToolResult:
        return ToolResult(structured=made, narration="Checked.")

    return book


def test_a_chain_of_ids_is_made_maker_first_and_the_shared_list_id_once() -> None:
    tools = chain_book().tools
    assert [str(s) for s in makers_of(tools, "check_item")] == ["make_list.list_id", "add_item.item_id"]
    runtime_of(chain_book())  # served as it is


def test_ids_that_form_a_cycle_are_refused_when_the_server_is_built_naming_the_cycle() -> None:
    book = chain_book({"list_id": "check_item.list_id"})
    with pytest.raises(DeclarationError, match="its ids form a cycle"):
        runtime_of(book)


def test_a_chain_longer_than_the_bound_is_refused_when_the_server_is_built() -> None:
    book = ToolBook()
    hints = {"read_only": True, "destructive": False, "open_world": False, "invoking": "…", "invoked": "Done"}
    for step in range(MAX_ID_CHAIN + 2):
        ids = {"list_id": f"step{step - 1}.list_id"} if step else None

        def handler(args: CheckIn, call: ToolCall) -> ToolResult:
            return ToolResult(structured=Made(list_id="l", item_id="i"), narration="Done.")

        book.tool(name=f"step{step}", title="Step", description="A step.", output=Made, ids=ids, **hints)(handler)
    with pytest.raises(DeclarationError, match=f"more than {MAX_ID_CHAIN} makers"):
        runtime_of(book)
