"""Tool schemas carry no `$ref`: clients that keep only part of a schema (the TypeScript SDK 1.22 drops `$defs`
from an outputSchema) can still read every one."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel, Field
from served_tools import SERVED_TOOLS
from widget_mcp.apps.books import AppContext, load_books
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit.schema_refs import inline_refs

SPECS = {
    spec.name: spec
    for book in load_books(AppContext(Settings(), InMemoryDocumentStore()))
    for spec in book.tools.values()
}


class Move(BaseModel):
    san: str


class Game(BaseModel):
    last: Move | None = Field(description="The last move.")
    moves: list[Move]


class Tree(BaseModel):
    children: list[Tree]


def _valid(schema: dict[str, Any], value: Any) -> bool:
    return Draft202012Validator(schema).is_valid(value)


def test_a_nested_model_is_written_out_and_accepts_and_refuses_what_the_original_does() -> None:
    original = Game.model_json_schema()
    assert "$defs" in original
    inlined = inline_refs(original)
    assert "$ref" not in json.dumps(inlined)
    assert "$defs" not in inlined
    assert inlined["properties"]["last"]["description"] == "The last move."
    for value in ({"last": {"san": "e4"}, "moves": [{"san": "e4"}]}, {"last": None, "moves": []}):
        assert (_valid(original, value), _valid(inlined, value)) == (True, True), value
    for value in ({"last": {"uci": "e2e4"}, "moves": []}, {"last": None, "moves": [{}]}):
        assert (_valid(original, value), _valid(inlined, value)) == (False, False), value


def test_a_recursive_model_keeps_its_references_and_their_definitions() -> None:
    inlined = inline_refs(Tree.model_json_schema())
    assert _valid(inlined, {"children": [{"children": []}]})
    assert not _valid(inlined, {"children": [{"leaves": []}]})


@pytest.mark.parametrize("tool", SERVED_TOOLS)
def test_every_served_tools_schemas_name_no_definition(tool: str) -> None:
    spec = SPECS[tool]
    for schema in (spec.input_schema, spec.output_schema):
        assert "$ref" not in json.dumps(schema), schema


class Place(BaseModel):
    model_config = {"json_schema_extra": {"$anchor": "placeDef"}}

    city: str


class Trip(BaseModel):
    start: Place
    end: Place | None = None


def test_a_definition_with_an_anchor_stays_defined_and_its_written_out_copies_drop_the_anchor() -> None:
    inlined = inline_refs(Trip.model_json_schema())
    assert inlined["$defs"]["Place"]["$anchor"] == "placeDef"
    assert "$ref" not in json.dumps({k: v for k, v in inlined.items() if k != "$defs"})
    assert json.dumps(inlined).count('"$anchor"') == 1
    assert _valid(inlined, {"start": {"city": "Oslo"}})
    assert not _valid(inlined, {"start": {}})
    # What refers to it by its anchor still resolves.
    by_anchor = {**inlined, "properties": {**inlined["properties"], "via": {"$ref": "#placeDef"}}}
    assert not _valid(by_anchor, {"start": {"city": "Oslo"}, "via": {}})
