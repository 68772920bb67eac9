"""Content blocks beyond the narration: images, audio, embedded resources and resource links.

A tool result carries them after its narration (`ToolResult(content=[...])`), and prompt messages carry one each
(`PromptMessage(role, Image(...))`). Each block checks its fields when built and renders the MCP wire shape.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from typing import Any

_MIME = re.compile(r"^[A-Za-z0-9][\w.+-]*/[A-Za-z0-9][\w.+-]*(\s*;.*)?$")
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$")


class ContentError(ValueError):
    """A content block was built with a field that no client could read; carries the field and its value."""

    def __init__(self, field: str, value: object, problem: str) -> None:
        super().__init__(f"{field} {value!r}: {problem}")
        self.field = field
        self.value = value


def check_mime_type(value: str, family: str | None = None) -> str:
    if not _MIME.match(value):
        raise ContentError("mime_type", value, "not a media type such as 'image/png'")
    if family is not None and not value.lower().startswith(f"{family}/"):
        raise ContentError("mime_type", value, f"must be an {family}/* type")
    return value


def check_uri(value: str) -> str:
    if not _URI.match(value):
        raise ContentError("uri", value, "not an absolute URI (a scheme, then ':')")
    return value


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


@dataclass(frozen=True, slots=True)
class Text:
    """A text block (beside the narration, which is always the first block)."""

    text: str

    def to_wire(self) -> dict[str, Any]:
        return {"type": "text", "text": self.text}


@dataclass(frozen=True, slots=True)
class Image:
    """An image, sent base64-encoded: `Image(png_bytes, "image/png")`."""

    data: bytes
    mime_type: str

    def __post_init__(self) -> None:
        check_mime_type(self.mime_type, "image")

    def to_wire(self) -> dict[str, Any]:
        return {"type": "image", "data": _b64(self.data), "mimeType": self.mime_type}


@dataclass(frozen=True, slots=True)
class Audio:
    """An audio clip, sent base64-encoded: `Audio(wav_bytes, "audio/wav")`."""

    data: bytes
    mime_type: str

    def __post_init__(self) -> None:
        check_mime_type(self.mime_type, "audio")

    def to_wire(self) -> dict[str, Any]:
        return {"type": "audio", "data": _b64(self.data), "mimeType": self.mime_type}


@dataclass(frozen=True, slots=True)
class EmbeddedResource:
    """A resource's contents inline: `text` for text, or `blob` (bytes) for anything else."""

    uri: str
    mime_type: str
    text: str | None = None
    blob: bytes | None = None

    def __post_init__(self) -> None:
        check_uri(self.uri)
        check_mime_type(self.mime_type)
        if (self.text is None) == (self.blob is None):
            raise ContentError("text/blob", self.uri, "give exactly one of text and blob")

    def contents(self) -> dict[str, Any]:
        """The `resource` object (`TextResourceContents` or `BlobResourceContents`)."""
        body: dict[str, Any] = {"uri": self.uri, "mimeType": self.mime_type}
        if self.text is not None:
            body["text"] = self.text
        else:
            assert self.blob is not None
            body["blob"] = _b64(self.blob)
        return body

    def to_wire(self) -> dict[str, Any]:
        return {"type": "resource", "resource": self.contents()}


@dataclass(frozen=True, slots=True)
class ResourceLink:
    """A pointer to a resource the client may read later with `resources/read` (or fetch, for https URIs)."""

    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None

    def __post_init__(self) -> None:
        check_uri(self.uri)
        if not self.name.strip():
            raise ContentError("name", self.name, "a resource link needs a name")
        if self.mime_type is not None:
            check_mime_type(self.mime_type)
        if self.size is not None and self.size < 0:
            raise ContentError("size", self.size, "a size is a byte count, at least 0")

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"type": "resource_link", "uri": self.uri, "name": self.name}
        for key, value in (
            ("title", self.title),
            ("description", self.description),
            ("mimeType", self.mime_type),
            ("size", self.size),
        ):
            if value is not None:
                wire[key] = value
        return wire


ContentBlock = Text | Image | Audio | EmbeddedResource | ResourceLink
