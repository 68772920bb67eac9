"""A DGUI form as an MCP elicitation, for hosts that can show a native form but no widget.

Elicitation carries only flat forms: an object whose properties are strings, numbers, integers, booleans or string
enums, with titles, descriptions, defaults, bounds and a few formats. A form that uses anything else (nested
objects, arrays, patterns, conditions, several steps) is not translated: the widget or the text fallback shows it,
so nothing the schema requires is dropped on the way.
"""

from __future__ import annotations

from typing import Any

from widget_mcp import Elicitation

_PRIMITIVES = {"string", "number", "integer", "boolean"}
_PROPERTY_KEYS = {"type", "title", "description", "default", "enum", "enumNames", "oneOf", "minimum", "maximum"}
_STRING_KEYS = {"minLength", "maxLength", "format"}
_FORMATS = {"email", "uri", "date", "date-time"}
_ROOT_KEYS = {"type", "properties", "required", "title", "description", "$schema", "additionalProperties"}


def _flat_property(prop: object) -> bool:
    if not isinstance(prop, dict) or prop.get("type") not in _PRIMITIVES:
        return False
    allowed = _PROPERTY_KEYS | (_STRING_KEYS if prop["type"] == "string" else set())
    if not set(prop) <= allowed or ("format" in prop and prop["format"] not in _FORMATS):
        return False
    titled = prop.get("oneOf")
    return titled is None or (
        prop["type"] == "string"
        and isinstance(titled, list)
        and all(
            isinstance(o, dict) and set(o) <= {"const", "title"} and isinstance(o.get("const"), str) for o in titled
        )
    )


def as_elicitation(schema: dict[str, Any], title: str | None, description: str | None) -> Elicitation | None:
    """The elicitation that asks what `schema` asks, or None when elicitation cannot carry it."""
    properties = schema.get("properties")
    if (
        schema.get("type") != "object"
        or not set(schema) <= _ROOT_KEYS
        or schema.get("additionalProperties", False) not in (False, True)
        or not isinstance(properties, dict)
        or not properties
        or not all(_flat_property(p) for p in properties.values())
    ):
        return None
    requested: dict[str, Any] = {"type": "object", "properties": properties}
    if schema.get("required"):
        requested["required"] = schema["required"]
    message = " ".join(part for part in (title, description) if part) or "Please fill in the form."
    return Elicitation(message, requested)
