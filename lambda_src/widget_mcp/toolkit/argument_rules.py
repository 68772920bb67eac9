"""Rules every tool's arguments meet, read from its input schema: caps on what a caller may send, and the
arguments mirrored in `Mcp-Param-*` headers."""

from __future__ import annotations

from typing import Any

from widget_mcp.toolkit.errors import DeclarationError

# What bounds a value of each JSON type in an input schema: anything a caller sends is stored or processed,
# so an argument without a cap is an invitation to send megabytes.
_CAPS = {
    "string": (("maxLength", "enum", "const"), "is a string without a length cap: give it max_length=…"),
    "integer": (("maximum", "exclusiveMaximum", "enum", "const"), "is a number without a maximum: give it le=…"),
    "number": (("maximum", "exclusiveMaximum", "enum", "const"), "is a number without a maximum: give it le=…"),
    "array": (("maxItems",), "is a list without a length cap: give it max_length=…"),
}


def uncapped_arguments(schema: dict[str, Any]) -> list[tuple[str, str]]:
    """(argument, problem) for each top-level argument with a string, number or list form that has no cap.

    Objects are not judged here: their size is a byte count, which only a validator can check.
    """
    found = []
    for argument, prop in schema.get("properties", {}).items():
        for branch in prop.get("anyOf") or prop.get("oneOf") or [prop]:
            rule = _CAPS.get(branch.get("type", ""))
            if rule is not None and not any(key in branch or key in prop for key in rule[0]):
                found.append((argument, rule[1]))
                break
    return found


X_MCP_HEADER = "x-mcp-header"


def _mentions(value: Any, key: str) -> bool:
    if isinstance(value, dict):
        return key in value or any(_mentions(v, key) for v in value.values())
    if isinstance(value, list):
        return any(_mentions(v, key) for v in value)
    return False


def header_arguments(tool: str, schema: dict[str, Any]) -> tuple[str, ...]:
    """The `Mcp-Param-<name>` headers an input schema declares with `x-mcp-header`, checked by the SDK's rules
    (a token, unique ignoring case, on a string, integer or boolean property reached through `properties`)."""
    if not _mentions(schema, X_MCP_HEADER):
        return ()
    from mcp.shared.inbound import find_invalid_x_mcp_header, x_mcp_header_map

    problem = find_invalid_x_mcp_header(schema)
    if problem is not None:
        raise DeclarationError(tool, problem)
    return tuple(f"Mcp-Param-{token}" for token in x_mcp_header_map(schema).values())
