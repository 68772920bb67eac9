"""A form as text, for a client that cannot show it: every field (name, type, required, choices and limits), so the
model can ask the user in chat and record the answers with record_form_answer."""

from __future__ import annotations

from typing import Any

RECORD_TOOL = "record_form_answer"
# What the text lists at most: a field list and a choice list long enough for any form a person fills in.
MAX_FIELDS = 60
MAX_CHOICES = 20
MAX_DEPTH = 3
_TYPES = {
    "string": "text",
    "integer": "whole number",
    "number": "number",
    "boolean": "yes/no (true or false)",
    "array": "list",
    "object": "group of fields",
}
_LIMITS = (
    ("minimum", "at least"),
    ("maximum", "at most"),
    ("exclusiveMinimum", "more than"),
    ("exclusiveMaximum", "less than"),
    ("minLength", "at least {} characters"),
    ("maxLength", "at most {} characters"),
    ("minItems", "at least {} items"),
    ("maxItems", "at most {} items"),
    ("pattern", "matching {}"),
)


def _choices(prop: dict[str, Any]) -> list[str]:
    if isinstance(prop.get("enum"), list):
        return [repr(v) if not isinstance(v, str) else v for v in prop["enum"]]
    titled = prop.get("oneOf") or prop.get("anyOf")
    if isinstance(titled, list) and all(isinstance(o, dict) and "const" in o for o in titled):
        return [f"{o['const']}" + (f" ({o['title']})" if isinstance(o.get("title"), str) else "") for o in titled]
    return []


def _kind(prop: dict[str, Any]) -> str:
    declared = prop.get("type")
    names = declared if isinstance(declared, list) else [declared]
    kind = " or ".join(_TYPES.get(n, str(n)) for n in names if n is not None) or "any value"
    if isinstance(prop.get("format"), str):
        kind += f", format {prop['format']}"
    items = prop.get("items")
    if declared == "array" and isinstance(items, dict):
        inner = _choices(items)
        kind += f" of {_kind(items)}" + (f" from: {', '.join(inner[:MAX_CHOICES])}" if inner else "")
    return kind


def _line(name: str, prop: dict[str, Any], required: bool) -> str:
    title = prop.get("title")
    parts = [f"- {name}" + (f" ({title})" if isinstance(title, str) and title != name else "")]
    parts.append(_kind(prop))
    parts.append("required" if required else "optional")
    for key, words in _LIMITS:
        if key in prop and not isinstance(prop[key], (dict, list)):
            parts.append(words.format(prop[key]) if "{}" in words else f"{words} {prop[key]}")
    choices = _choices(prop)
    if choices:
        more = ", …" if len(choices) > MAX_CHOICES else ""
        parts.append("one of: " + ", ".join(choices[:MAX_CHOICES]) + more)
    if "default" in prop:
        parts.append(f"default {prop['default']!r}")
    if isinstance(prop.get("description"), str):
        parts.append(prop["description"][:200])
    return "; ".join(parts)


def field_lines(schema: dict[str, Any]) -> list[str]:
    """One line per field (a group's fields as `group.field`), in the schema's order, at most MAX_FIELDS."""
    lines: list[str] = []
    todo: list[tuple[str, dict[str, Any], int]] = [("", schema, 0)]
    while todo and len(lines) < MAX_FIELDS:
        prefix, node, depth = todo.pop(0)
        properties = node.get("properties")
        declared = node.get("required")
        required: list[Any] = declared if isinstance(declared, list) else []
        if not isinstance(properties, dict):
            continue
        for name, prop in properties.items():
            if len(lines) >= MAX_FIELDS:
                break
            if not isinstance(prop, dict):
                continue
            path = f"{prefix}{name}"
            lines.append(_line(path, prop, name in required))
            if prop.get("type") == "object" and depth + 1 < MAX_DEPTH:
                todo.append((f"{path}.", prop, depth + 1))
    if todo or len(lines) >= MAX_FIELDS:
        lines.append("- … (more fields: see the schema in the structured result)")
    return lines


def chat_text(form_id: str, title: str | None, schema: dict[str, Any], *, maybe_shown: bool, step: str = "") -> str:
    """The fallback narration: that the client cannot show the form, its fields, and how to record the answers.
    `maybe_shown`: the client did not say what it shows (it may be showing the form's widget after all)."""
    if maybe_shown:
        opening = (
            "This client did not say it can show forms, so the user may not see this one. Unless they answer it in a "
            "form on screen, ask them in chat for these fields"
        )
    else:
        opening = "This client cannot show forms, so no form is shown. Ask the user in chat for these fields"
    heading = f" ({title}{step})" if title else (f" ({step.strip(' ,')})" if step else "")
    fields = "\n".join(field_lines(schema))
    return (
        f"{opening}{heading}:\n{fields}\n"
        f"Then record exactly what they said with {RECORD_TOOL} (formId {form_id!r}, data: the answers by field "
        "name); it checks them against the form and tells you what to fix. Never invent answers."
    )
