"""Input schemas that every tool converter reads: an optional argument is published as its type alone.

Pydantic writes `x: str | None = None` as `anyOf: [{type: string}, {type: null}]` with `default: null`. Agent
frameworks convert MCP input schemas into their own (smolagents' mcpadapt, langchain-core, google-genai, the
OpenAI Agents SDK), and several misread such a union: as a required string, or as a schema they cannot take in
strict mode. When the default is None, null and absence mean the same, so the null branch says nothing: it is
dropped, with the `default: null` beside it. Validation is the input model's and is unchanged, so a client that
sends null is still answered as if it had left the argument out.

When null does mean something (the handler reads `args.model_fields_set` to tell it from absence), say so, and the
union stays: `title: Annotated[str | None, NullMeansSomething()] = None`.
"""

from __future__ import annotations

from typing import Any

from pydantic import GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

# Written by NullMeansSomething into the generated schema, read and removed by `portable_input_schema`.
_KEEP_NULL = "x-widget-mcp-null-means-something"
_NULL = {"type": "null"}


class NullMeansSomething:
    """Marks an optional argument whose null is not the same as its absence: its schema keeps `null` in a union."""

    def __get_pydantic_json_schema__(self, core_schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schema = handler(core_schema)
        schema[_KEEP_NULL] = True
        return schema

    def __repr__(self) -> str:
        return "NullMeansSomething()"


def portable_input_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` (an input model's, references written out) with each `anyOf: [T…, null]` whose default is None
    written as T alone (or `anyOf: [T…]`), and the markers of NullMeansSomething removed."""

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        keep_null = node.get(_KEEP_NULL) is True
        node = {key: walk(value) for key, value in node.items() if key != _KEEP_NULL}
        branches = node.get("anyOf")
        if keep_null or node.get("default", ...) is not None or not isinstance(branches, list):
            return node
        rest = [branch for branch in branches if branch != _NULL]
        if len(rest) == len(branches) or not rest:
            return node
        others = {key: value for key, value in node.items() if key not in ("anyOf", "default")}
        if len(rest) > 1:
            return {**others, "anyOf": rest}
        return {**rest[0], **others}

    walked: dict[str, Any] = walk(schema)
    return walked


def null_unions(schema: Any, path: str = "") -> list[str]:
    """Where `schema` lets a value be null (a `null` branch of an `anyOf`/`oneOf`, or `null` in a type list)."""
    found: list[str] = []
    if isinstance(schema, list):
        for index, item in enumerate(schema):
            found += null_unions(item, f"{path}/{index}")
    elif isinstance(schema, dict):
        kind = schema.get("type")
        if isinstance(kind, list) and "null" in kind:
            found.append(path or "/")
        for union in ("anyOf", "oneOf"):
            if isinstance(schema.get(union), list) and _NULL in schema[union]:
                found.append(f"{path}/{union}")
        for key, value in schema.items():
            found += null_unions(value, f"{path}/{key}")
    return found
