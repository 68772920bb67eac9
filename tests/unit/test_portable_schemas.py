"""Input schemas every agent framework's converter reads: what the toolkit publishes for an app's optional
arguments, and rules checked on every served tool (the converters themselves are not installed here; each rule
names the converter whose reading it stands for)."""

from __future__ import annotations

import keyword
from typing import Annotated, Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel, Field
from served_tools import SERVED_SPECS
from widget_mcp.toolkit import NullMeansSomething, ToolBook, ToolCall, ToolResult
from widget_mcp.toolkit.portable import null_unions
from widget_mcp.toolkit.tools import ToolSpec


class Place(BaseModel):
    city: str = Field(max_length=50)
    zip: str | None = Field(default=None, max_length=10)


class TripIn(BaseModel):
    destination: str = Field(max_length=50)
    nights: int | None = Field(default=None, ge=1, le=30, description="How long.")
    note: Annotated[str | None, NullMeansSomething()] = Field(
        default=None, max_length=100, description="null clears the saved note; leave it out to keep it."
    )
    budget: int | None = Field(default=100, le=10_000, description="null: no budget.")
    start: Place | None = None


class TripOut(BaseModel):
    ok: bool


def declared(model: type[BaseModel] = TripIn) -> ToolSpec:
    book = ToolBook()

    @book.tool(
        name="plan_trip",
        title="Plan a trip",
        description="Plans a trip.",
        output=TripOut,
        read_only=True,
        destructive=False,
        open_world=False,
        invoking="Planning…",
        invoked="Planned",
    )
    def plan(args: TripIn, call: ToolCall) -> ToolResult:
        return ToolResult(structured=TripOut(ok=True), narration="ok")

    return book.tools["plan_trip"]


def test_an_optional_argument_of_a_users_tool_is_published_as_its_type_alone_with_its_description() -> None:
    nights = declared().input_schema["properties"]["nights"]

    assert nights == {"type": "integer", "minimum": 1, "maximum": 30, "description": "How long.", "title": "Nights"}


def test_an_optional_nested_model_and_its_own_optional_fields_lose_their_null_unions_too() -> None:
    start = declared().input_schema["properties"]["start"]

    assert start["type"] == "object"
    assert start["properties"]["zip"] == {"type": "string", "maxLength": 10, "title": "Zip"}
    assert null_unions(start) == []


def test_an_argument_whose_null_means_something_keeps_its_null_union_and_the_marker_stays_off_the_wire() -> None:
    schema = declared().input_schema

    assert {"type": "null"} in schema["properties"]["note"]["anyOf"]
    assert "x-widget-mcp-null-means-something" not in str(schema)


def test_an_argument_whose_default_is_not_none_keeps_null_since_null_then_differs_from_absence() -> None:
    budget = declared().input_schema["properties"]["budget"]

    assert {"type": "null"} in budget["anyOf"]
    assert budget["default"] == 100


def test_a_null_sent_for_an_argument_published_without_null_still_validates_as_its_absence() -> None:
    spec = declared()

    assert spec.input_model.model_validate({"destination": "Oslo", "nights": None, "start": None}) == (
        spec.input_model.model_validate({"destination": "Oslo"})
    )


# --- Rules on every served tool of every app ---------------------------------------------------------------

SPECS = SERVED_SPECS


def _field_of(spec: ToolSpec, wire_name: str) -> Any:
    for name, info in spec.input_model.model_fields.items():
        if (info.alias or name) == wire_name:
            return info
    raise AssertionError(f"{spec.name}: no field published as {wire_name!r}")


def _objects(schema: Any) -> list[dict[str, Any]]:
    found = []
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            found.append(schema)
        for value in schema.values():
            found += _objects(value)
    elif isinstance(schema, list):
        for item in schema:
            found += _objects(item)
    return found


@pytest.mark.parametrize("name", SPECS)
def test_every_input_schema_is_a_valid_draft_2020_12_schema(name: str) -> None:
    Draft202012Validator.check_schema(SPECS[name].input_schema)


@pytest.mark.parametrize("name", SPECS)
def test_no_input_schema_lets_an_argument_be_null_unless_null_differs_from_leaving_it_out(name: str) -> None:
    spec = SPECS[name]
    for path in null_unions(spec.input_schema):
        parts = path.strip("/").split("/")
        assert len(parts) == 3, f"{name}: a nested null union at {path}"
        assert parts[0] == "properties", f"{name}: a null union at {path}"
        info = _field_of(spec, parts[1])
        meaningful = (
            info.is_required()
            or info.default is not None
            or any(isinstance(m, NullMeansSomething) for m in info.metadata)
        )
        assert meaningful, f"{name}: {parts[1]!r} publishes null though its default is None"


@pytest.mark.parametrize("name", SPECS)
def test_every_argument_has_a_name_python_converters_can_take_and_a_required_one_is_never_a_keyword(
    name: str,
) -> None:
    """langchain-core builds a function signature from the properties and drops a Python keyword (`from`);
    mcpadapt and google-genai name parameters by them. A keyword-named argument must be one the tool can do
    without: never required."""
    schema = SPECS[name].input_schema
    for prop in schema["properties"]:
        assert prop.isidentifier(), f"{name}: {prop!r} is not an identifier"
    assert not [p for p in schema.get("required", []) if keyword.iskeyword(p)]


@pytest.mark.parametrize("name", SPECS)
def test_required_lists_only_published_arguments_and_every_argument_has_a_type_mcpadapt_reads(name: str) -> None:
    """mcpadapt gives a property without a top-level `type` the type string: a union must accept a string."""
    schema = SPECS[name].input_schema
    assert set(schema.get("required", [])) <= set(schema["properties"])
    for prop, sub in schema["properties"].items():
        typed = isinstance(sub.get("type"), str) or any(b.get("type") == "string" for b in sub.get("anyOf", []))
        assert typed, f"{name}: {prop!r} has no type, and mcpadapt would make it a string it does not take"
        assert "oneOf" not in sub, f"{name}: {prop!r} uses oneOf, which converters drop"
        assert "allOf" not in sub, f"{name}: {prop!r} uses allOf, which converters drop"


@pytest.mark.parametrize("name", SPECS)
def test_every_input_schema_names_nothing_and_closes_its_top_object(name: str) -> None:
    """google-genai resolves no `$ref`; openai-agents' strict mode needs `additionalProperties: false`."""
    schema = SPECS[name].input_schema
    assert "$ref" not in str(schema)
    assert "$defs" not in schema
    assert schema["type"] == "object"
    assert schema.get("additionalProperties") is False


@pytest.mark.parametrize("name", SPECS)
def test_no_object_with_declared_properties_leaves_others_open(name: str) -> None:
    """openai-agents' strict conversion refuses an object whose `additionalProperties` is not false and falls
    back to non-strict for the whole tool: only a free-form object (no declared properties) may be open."""
    for obj in _objects(SPECS[name].input_schema):
        if obj.get("properties"):
            assert obj.get("additionalProperties", False) is False, f"{name}: {sorted(obj['properties'])} is open"
