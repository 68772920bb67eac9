"""An app with a subscribable resource template of each shape the toolkit takes, written with its public API only:
the hostile corpus's `"app": "template_shapes"` entries read and follow URIs of each (tests/hostile_corpus.py)."""

from __future__ import annotations

from widget_mcp.toolkit import ToolBook

book = ToolBook()
FILES = {("report", "pdf"): "the report"}


@book.resource_template(
    uri_template="shapes://one/{name}",
    name="one_variable",
    title="One variable",
    description="A note by name.",
    mime_type="text/plain",
    subscribable=True,
)
def one_variable(name: str) -> str | None:
    return f"note {name}" if name.isalnum() else None


@book.resource_template(
    uri_template="shapes://files/{name}.{ext}",
    name="two_variables_in_a_segment",
    title="Two variables in a segment",
    description="A file by name and extension.",
    mime_type="text/plain",
    subscribable=True,
)
def two_variables_in_a_segment(name: str, ext: str) -> str | None:
    return FILES.get((name, ext))


@book.resource_template(
    uri_template="shapes://tree/{a}/{b}/{c}",
    name="a_variable_per_segment",
    title="A variable per segment",
    description="A leaf of a three-level tree.",
    mime_type="text/plain",
    subscribable=True,
)
def a_variable_per_segment(a: str, b: str, c: str) -> str | None:
    return f"{a}>{b}>{c}" if len(a + b + c) < 30 else None
