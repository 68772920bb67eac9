"""Form schemas from the model: what is accepted, and what is refused with a message naming the problem."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from seed_forms import EXAMPLES, FLIGHT
from widget_mcp.apps.forms.domain import FormLimits, InvalidSchema, check_form_schema, read_json_object


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_seed_example_is_an_acceptable_form(name: str) -> None:
    check_form_schema(EXAMPLES[name])


def test_the_seed_flight_form_is_accepted_as_an_object_or_as_json_text() -> None:
    assert read_json_object(json.dumps(FLIGHT), "question") == FLIGHT
    check_form_schema(read_json_object(FLIGHT, "question"))


@pytest.mark.parametrize(
    "dialect", ["http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema"]
)
def test_draft_07_and_2020_12_schemas_are_both_accepted(dialect: str) -> None:
    check_form_schema({"$schema": dialect, **FLIGHT})


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"type": "object"}, "Missing 'properties' field"),
        ({"type": "object", "properties": {}}, "Missing 'properties' field"),
        ({"type": "string"}, 'must have "type": "object"'),
        ({"properties": {"a": {"type": "string"}}}, 'must have "type": "object"'),
        ({"type": "object", "properties": {"a": {"type": 12}}}, "at properties/a/type"),
        ({"type": "object", "properties": {"a": {"minLength": -1}}}, "at properties/a/minLength"),
        ({"type": "object", "properties": {"a": {}}, "required": ["b"]}, "Required fields ['b']"),
        ({"$schema": "http://json-schema.org/draft-04/schema#", **FLIGHT}, "Unsupported $schema"),
    ],
)
def test_a_schema_that_is_not_a_form_schema_is_refused_naming_the_problem(schema: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidSchema, match=message.replace("[", r"\[").replace("$", r"\$")) as caught:
        check_form_schema(schema)
    assert caught.value.payload == schema


def test_oversized_or_too_deep_schemas_are_refused() -> None:
    huge = {"type": "object", "properties": {f"f{i}": {"type": "string", "title": "x" * 400} for i in range(90)}}
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(12):
        deep = {"type": "object", "properties": {"x": deep}}

    with pytest.raises(InvalidSchema, match="larger than 32 KB"):
        check_form_schema(huge)
    with pytest.raises(InvalidSchema, match="deeper than 12"):
        check_form_schema(deep)


@pytest.mark.parametrize(("value", "message"), [("{not json", "Invalid JSON in question"), ("[1]", "JSON object")])
def test_question_text_that_is_not_a_json_object_is_refused(value: str, message: str) -> None:
    with pytest.raises(InvalidSchema, match=message) as caught:
        read_json_object(value, "question")
    assert caught.value.payload == value


CAP = 16 * 1024


def _field(**keywords: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"tags": keywords}}


@pytest.mark.parametrize(
    ("schema", "where", "keyword"),
    [
        (_field(type="array", minItems=100_000), "properties/tags", "minItems 100,000"),
        (_field(type="string", minLength=CAP), "properties/tags", f"minLength {CAP:,}"),
        (_field(type="object", minProperties=4_000), "properties/tags", "minProperties 4,000"),
        (
            _field(type="array", items={"type": "string", "minLength": 20_000}),
            "properties/tags/items",
            "minLength 20,000",
        ),
        (
            {
                "type": "object",
                "$defs": {"big": {"type": "array", "minItems": 9_000}},
                "properties": {"a": {"$ref": "#/$defs/big"}},
            },
            "$defs/big",
            "minItems 9,000",
        ),
        ({"type": "object", "properties": {"a": {}}, "minProperties": 5_000}, "the root", "minProperties 5,000"),
    ],
)
def test_a_field_no_answer_within_the_answer_cap_could_fill_is_refused_naming_its_keyword_and_place(
    schema: dict[str, Any], where: str, keyword: str
) -> None:
    with pytest.raises(InvalidSchema, match=f"at {re.escape(where)}: {keyword} asks for more than an answer may hold"):
        check_form_schema(schema, FormLimits(answer_bytes=CAP))


@pytest.mark.parametrize(
    "schema",
    [
        _field(type="array", minItems=1_000),  # 2 KB of JSON at least: fits
        _field(type="string", minLength=CAP - 2),  # exactly the cap
        _field(minLength=100_000),  # binds only strings, and a number answers it
        _field(type=["string", "number"], minLength=100_000),
        _field(anyOf=[{"type": "string", "minLength": 100_000}, {"type": "string", "maxLength": 10}]),
        _field(type="string", **{"not": {"type": "string", "minLength": 100_000}}),
    ],
)
def test_a_field_some_answer_within_the_cap_can_fill_is_accepted(schema: dict[str, Any]) -> None:
    check_form_schema(schema, FormLimits(answer_bytes=CAP))
