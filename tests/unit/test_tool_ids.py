"""A tool declares which of its arguments are ids another tool's result makes (`ids=` on `book.tool`): published
in its `_meta`, checked against both tools' declarations, and never guessed from field names."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from pydantic import BaseModel, ConfigDict, Field
from widget_mcp.apps.registry import AppContext, load_books
from widget_mcp.server import build_runtime
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit import ToolBook, ToolCall, ToolResult
from widget_mcp.toolkit.errors import DeclarationError
from widget_mcp.toolkit.id_sources import IDS_META
from widget_mcp.toolkit.runtime import ToolRuntime
from widget_mcp.toolkit.tools import json_schema


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


def test_every_served_tools_declared_ids_name_a_served_tool_that_makes_them_without_needing_an_id() -> None:
    specs = {s.name: s for b in load_books(AppContext(Settings(), InMemoryDocumentStore())) for s in b.tools.values()}
    declared = [(spec, source) for spec in specs.values() for source in spec.ids.values()]
    assert declared, "no served tool declares an id: the playground and the client matrix would plan no call"
    for spec, source in declared:
        maker = specs[source.tool]
        assert source.field in json_schema(maker.output_model)["properties"], (spec.name, source)
        # the playground and the client matrix call a maker from its examples alone: an id it needs is never made
        needed = sorted(set(maker.input_schema.get("required", [])) & set(maker.ids))
        assert not needed, (
            f"{spec.name} takes its {source.tool}.{source.field} from {maker.name}, which itself needs the id(s) "
            f"{', '.join(needed)}: ids are made one step deep, by a tool that needs none (README, Keep state)"
        )
