"""Which arguments of a tool are ids that another tool's result makes, as the tool declares them:
`ids={"poll_id": "create_poll.pollId"}` on `book.tool`. The playground and the test clients read the declaration
(published in the tool's `_meta` under `IDS_META`) to make an id before a call that needs one; nothing is inferred
from field names, which an output echoing an input (`question`) would fool."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel

from widget_mcp.toolkit.errors import DeclarationError
from widget_mcp.toolkit.model_schemas import json_schema

IDS_META = "widget-mcp/ids"
# Longer than any id a served tool makes (a capability id is 24 characters): a longer value names no session.
SESSION_ID_MAX = 200
_SOURCE = re.compile(r"^([a-z][a-z0-9_]{0,63})\.([A-Za-z_][A-Za-z0-9_]{0,63})$")


@dataclass(frozen=True)
class IdSource:
    """The tool whose successful result carries the id, and the field of its structuredContent that holds it."""

    tool: str
    field: str

    def __str__(self) -> str:
        return f"{self.tool}.{self.field}"


def parse_ids(tool: str, ids: Mapping[str, str] | None, input_schema: Mapping[str, Any]) -> dict[str, IdSource]:
    """The declaration checked against the tool's own input schema: each key a string argument, each value
    `tool.field` naming another tool."""
    parsed: dict[str, IdSource] = {}
    properties = input_schema.get("properties", {})
    for argument, source in (ids or {}).items():
        if argument not in properties:
            raise DeclarationError(tool, f"ids names {argument!r}, which is not one of its arguments")
        if properties[argument].get("type") != "string":
            raise DeclarationError(tool, f"ids names {argument!r}, which is not a string argument")
        found = _SOURCE.match(source) if isinstance(source, str) else None
        if found is None:
            raise DeclarationError(tool, f"ids[{argument!r}] is {source!r}: spell it 'tool_name.outputField'")
        if found.group(1) == tool:
            raise DeclarationError(tool, f"ids[{argument!r}] names the tool itself; name the tool that makes the id")
        parsed[argument] = IdSource(found.group(1), found.group(2))
    return parsed


class DeclaresIds(Protocol):
    """What the checks read of a tool's declaration (a ToolSpec): its name, its declared ids and its output."""

    @property
    def name(self) -> str: ...

    @property
    def ids(self) -> Mapping[str, IdSource]: ...

    @property
    def output_model(self) -> type[BaseModel]: ...


# How many makers a chain of ids may pass through (a list, its item, the item's check): a client makes each first.
MAX_ID_CHAIN = 4


def check_id_sources(tools: Mapping[str, DeclaresIds]) -> None:
    """Across the served tools: each declared source is a served tool whose output declares that field at its
    top; and following the makers from any tool ends, within MAX_ID_CHAIN steps, at tools that need no id (a cycle
    could never start, a longer chain is a declaration error rather than a surprise in every client)."""
    for spec in tools.values():
        for argument, source in spec.ids.items():
            producer = tools.get(source.tool)
            where = f"ids[{argument!r}] is {str(source)!r}"
            if producer is None:
                raise DeclarationError(spec.name, f"{where}, but no served tool is called {source.tool!r}")
            if source.field not in json_schema(producer.output_model).get("properties", {}):
                raise DeclarationError(spec.name, f"{where}, but {source.tool}'s output has no field {source.field!r}")
    for spec in tools.values():
        makers_of(tools, spec.name)


def makers_of(tools: Mapping[str, DeclaresIds], tool: str) -> list[IdSource]:
    """The ids `tool` needs, its makers' included, in an order a client can make them: each id after those its
    maker needs, each source once (a check of a list's item takes the list id its item was made in). Raises
    DeclarationError for a cycle or a chain longer than MAX_ID_CHAIN."""
    order: list[IdSource] = []

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in path:
            cycle = " -> ".join((*path[path.index(name) :], name))
            raise DeclarationError(path[0], f"its ids form a cycle ({cycle}): the first maker of a chain needs no id")
        if len(path) > MAX_ID_CHAIN:
            chain = " -> ".join((*path, name))
            raise DeclarationError(path[0], f"its ids chain through more than {MAX_ID_CHAIN} makers ({chain})")
        for source in tools[name].ids.values():
            if source.tool in tools:
                visit(source.tool, (*path, name))
            if source not in order:
                order.append(source)

    visit(tool, ())
    return order


def ids_meta(ids: Mapping[str, IdSource]) -> dict[str, str]:
    """The declaration as published in the tool's `_meta[IDS_META]`: argument → "tool.field"."""
    return {argument: str(source) for argument, source in ids.items()}


def declared_id(ids: Mapping[str, IdSource], arguments: Mapping[str, Any] | None) -> str | None:
    """The value of the call's first declared id argument, as sent (the call may still refuse it), if it is a
    non-empty string of at most SESSION_ID_MAX characters; else None."""
    for argument in ids:
        value = (arguments or {}).get(argument)
        if isinstance(value, str) and 0 < len(value) <= SESSION_ID_MAX:
            return value
    return None
