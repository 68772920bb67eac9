"""The `examples` a tool's input declares (the playground prefills its form with them) are valid arguments."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator
from widget_mcp.apps.books import AppContext, load_books
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit.tools import ToolSpec

SPECS = [spec for book in load_books(AppContext(Settings(), InMemoryDocumentStore())) for spec in book.tools.values()]


def examples_of(spec: ToolSpec) -> dict[str, list[Any]]:
    properties = spec.input_model.model_json_schema().get("properties", {})
    return {name: prop["examples"] for name, prop in properties.items() if prop.get("examples")}


def test_some_served_tools_declare_examples() -> None:
    assert any(examples_of(spec) for spec in SPECS)


@pytest.mark.parametrize("spec", SPECS, ids=[spec.name for spec in SPECS])
def test_every_argument_example_fits_its_arguments_schema_and_the_input_model(spec: ToolSpec) -> None:
    schema = spec.input_model.model_json_schema()
    for name, examples in examples_of(spec).items():
        for example in examples:
            argument = {**schema["properties"][name], "$defs": schema.get("$defs", {})}
            errors = [e.message for e in Draft202012Validator(argument).iter_errors(example)]
            assert errors == [], f"{spec.name}.{name} example {example!r}: {errors}"
    required = set(schema.get("required", []))
    examples = {name: values[0] for name, values in examples_of(spec).items()}
    if required <= examples.keys():  # the examples alone make a call (ids come from earlier results instead)
        spec.input_model.model_validate(examples)
