"""Content blocks beside the narration: their wire shapes, their checks, and where they sit in a result."""

from __future__ import annotations

import base64
import json

import pytest
from widget_mcp.toolkit import (
    Audio,
    ContentError,
    DisplayWidget,
    EmbeddedResource,
    Image,
    ResourceLink,
    Text,
    ToolResult,
)
from widget_mcp.toolkit.results import error_wire


def test_each_block_renders_the_mcp_wire_shape_with_binary_data_base64_encoded() -> None:
    assert Image(b"\x00\xff", "image/png").to_wire() == {"type": "image", "data": "AP8=", "mimeType": "image/png"}
    assert Audio(b"RIFF", "audio/wav").to_wire() == {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}
    assert EmbeddedResource("docs://a", "text/markdown", text="# A").to_wire() == {
        "type": "resource",
        "resource": {"uri": "docs://a", "mimeType": "text/markdown", "text": "# A"},
    }
    blob = EmbeddedResource("docs://a.bin", "application/octet-stream", blob=b"\x01\x02").to_wire()
    assert base64.b64decode(blob["resource"]["blob"]) == b"\x01\x02"
    assert "text" not in blob["resource"]
    assert ResourceLink("https://example.com/a.pdf", "a", title="A", mime_type="application/pdf", size=3).to_wire() == {
        "type": "resource_link",
        "uri": "https://example.com/a.pdf",
        "name": "a",
        "title": "A",
        "mimeType": "application/pdf",
        "size": 3,
    }
    assert Text("more").to_wire() == {"type": "text", "text": "more"}


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: Image(b"", "png"), "mime_type"),
        (lambda: Image(b"", "audio/wav"), "mime_type"),
        (lambda: Audio(b"", "image/png"), "mime_type"),
        (lambda: EmbeddedResource("no scheme", "text/plain", text="x"), "uri"),
        (lambda: EmbeddedResource("docs://a", "text/plain"), "text/blob"),
        (lambda: EmbeddedResource("docs://a", "text/plain", text="x", blob=b"x"), "text/blob"),
        (lambda: ResourceLink("docs://a", " "), "name"),
        (lambda: ResourceLink("docs://a", "a", size=-1), "size"),
    ],
)
def test_a_block_no_client_could_read_is_refused_when_built_naming_the_field(build: object, field: str) -> None:
    with pytest.raises(ContentError) as caught:
        build()  # type: ignore[operator]
    assert caught.value.field == field


def test_the_narration_comes_first_then_the_structured_content_then_the_blocks_then_the_fallbacks() -> None:
    result = ToolResult(
        structured={"n": 1},
        narration="Said.",
        content=[Image(b"i", "image/gif"), ResourceLink("docs://b", "b")],
    )
    wire = result.to_wire([DisplayWidget("text", {"text": "t"}, fallback="fallback")])
    assert [block["type"] for block in wire["content"]] == ["text", "text", "image", "resource_link", "text"]
    assert wire["content"][0]["text"] == "Said."
    assert json.loads(wire["content"][1]["text"]) == wire["structuredContent"] == {"n": 1}
    assert wire["content"][-1]["text"] == "fallback"


def test_a_result_without_blocks_is_the_narration_and_its_structured_content_as_compact_json() -> None:
    structured = {"city": "Zürich", "nested": {"ply": 3, "tags": ["a", "b"]}}
    assert ToolResult(structured=structured, narration="Only this.").to_wire([])["content"] == [
        {"type": "text", "text": "Only this."},
        # Compact, non-ASCII as itself: what a model reading only the text is handed costs as few tokens as it can.
        {"type": "text", "text": '{"city":"Zürich","nested":{"ply":3,"tags":["a","b"]}}'},
    ]


def test_an_error_result_keeps_its_sentence_and_serializes_only_a_structured_content_it_carries() -> None:
    plain = error_wire("gone", "It is gone; start again.")
    assert plain["content"] == [{"type": "text", "text": "It is gone; start again."}]
    state = {"gameId": "g", "ply": 4}
    carrying = error_wire("conflict", "The game moved on.", structured=state)
    assert [block["text"] for block in carrying["content"]] == ["The game moved on.", '{"gameId":"g","ply":4}']
    assert carrying["structuredContent"] == state
