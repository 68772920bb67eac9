"""Fixture resources with the URIs and contents the conformance suite's resource scenarios expect."""

from __future__ import annotations

import json

from widget_mcp.toolkit import complete_from

from conformance_fixtures.media import RED_PIXEL_PNG
from conformance_fixtures.tools import book


@book.resource(
    uri="test://static-text",
    name="static-text",
    title="Static text",
    description="A fixed text resource (conformance: resources-read-text).",
    mime_type="text/plain",
)
def static_text() -> str:
    return "This is the content of the static text resource."


@book.resource(
    uri="test://static-binary",
    name="static-binary",
    title="Static binary",
    description="A fixed binary resource, a 1×1 PNG (conformance: resources-read-binary).",
    mime_type="image/png",
)
def static_binary() -> bytes:
    return RED_PIXEL_PNG


@book.resource_template(
    uri_template="test://template/{id}/data",
    name="template-data",
    title="Data by id",
    description="JSON naming the id it was read with (conformance: resources-templates-read).",
    mime_type="application/json",
    complete={"id": complete_from(["123", "456", "789"])},
)
def template_data(id: str) -> str:
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"}, separators=(",", ":"))


@book.resource(
    uri="test://watched-resource",
    name="watched-resource",
    title="Watched resource",
    description="A resource clients may subscribe to (conformance: resources-subscribe, resources-unsubscribe).",
    mime_type="text/plain",
    subscribable=True,
)
def watched_resource() -> str:
    return "A resource whose changes subscribers are told of."
