"""JSON Schemas of pydantic models as tools publish them: references written out, optional arguments portable."""

from __future__ import annotations

from functools import cache
from typing import Any, Union, cast

from pydantic import BaseModel, TypeAdapter

from widget_mcp.toolkit.portable import portable_input_schema
from widget_mcp.toolkit.schema_refs import inline_refs


@cache
def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A model's JSON Schema with its references written out (schema_refs.py), generated once per process (several
    tools share a model); read-only."""
    return inline_refs(model.model_json_schema())


@cache
def input_json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A tool's inputSchema: its input model's, with optional arguments published as their type alone
    (portable.py), so that every agent framework's converter reads it; generated once per process; read-only."""
    return portable_input_schema(json_schema(model))


@cache
def output_json_schema(outputs: tuple[type[BaseModel], ...], error_output: type[BaseModel] | None) -> dict[str, Any]:
    """A tool's outputSchema: its output model's, or with other outputs or an `error_output`, an object that is any
    of them (hosts require `type: "object"` at the top; `anyOf` keeps it readable by any JSON Schema validator). The
    first output model is the first branch: what a success usually returns, as the playground reads it."""
    models = outputs if error_output is None else (*outputs, error_output)
    if len(models) == 1:
        return json_schema(models[0])
    union: dict[str, Any] = TypeAdapter(cast(Any, Union[models])).json_schema()  # noqa: UP007 - built from a tuple
    return inline_refs({"type": "object", **union})
