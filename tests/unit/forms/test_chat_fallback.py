"""The text a form becomes where no form can be shown (chat_fallback.py): every field a line, and whatever the
schema holds, at most MAX_FIELDS lines (then a line saying there are more), MAX_CHOICES choices a line and MAX_DEPTH
levels of groups."""

from __future__ import annotations

from typing import Any

from widget_mcp.apps.forms.chat_fallback import MAX_CHOICES, MAX_DEPTH, MAX_FIELDS, RECORD_TOOL, chat_text, field_lines

MORE = "- … (more fields: see the schema in the structured result)"


def nested(depth: int) -> dict[str, Any]:
    """A group of groups `depth` deep, each with one text field."""
    schema: dict[str, Any] = {"type": "object", "properties": {"leaf": {"type": "string"}}}
    for level in range(depth):
        schema = {"type": "object", "properties": {f"g{level}": schema, "leaf": {"type": "string"}}}
    return schema


def test_a_small_form_lists_each_field_with_its_kind_whether_required_its_limits_and_choices() -> None:
    schema = {
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string", "title": "Your name", "maxLength": 40},
            "rating": {"type": "integer", "minimum": 1, "maximum": 5, "default": 3},
            "size": {"type": "string", "enum": ["S", "M", "L"]},
        },
    }

    assert field_lines(schema) == [
        "- name (Your name); text; required; at most 40 characters",
        "- rating; whole number; optional; at least 1; at most 5; default 3",
        "- size; text; optional; one of: S, M, L",
    ]
    text = chat_text("f-1", "Order", schema, maybe_shown=False)
    assert f"{RECORD_TOOL} (formId 'f-1'" in text
    assert "\n".join(field_lines(schema)) in text


def test_however_many_fields_and_choices_a_schema_holds_the_text_stops_at_its_bounds() -> None:
    choices = [f"c{i}" for i in range(10 * MAX_CHOICES)]
    props = {f"f{i}": {"type": "string", "enum": choices, "description": "d" * 10_000} for i in range(10 * MAX_FIELDS)}

    lines = field_lines({"type": "object", "properties": props})

    assert len(lines) == MAX_FIELDS + 1
    assert lines[-1] == MORE
    assert all(line.count(", c") == MAX_CHOICES - 1 and ", …" in line for line in lines[:-1])
    assert all(len(line) < 200 + 20 * MAX_CHOICES for line in lines[:-1])


def test_groups_are_listed_as_group_field_down_to_max_depth_and_no_deeper() -> None:
    lines = field_lines(nested(MAX_DEPTH + 5))

    depths = [line.split(";")[0].count(".") for line in lines]
    assert max(depths) == MAX_DEPTH - 1
    assert len(lines) == 2 * MAX_DEPTH
