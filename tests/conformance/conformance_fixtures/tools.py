"""Fixture tools with the names, arguments and results the conformance suite's scenarios expect."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from widget_mcp.toolkit import Audio, EmbeddedResource, Image, ToolBook, ToolCall, ToolError, ToolResult

from conformance_fixtures.media import RED_PIXEL_PNG, SILENT_WAV

book = ToolBook()


class NoArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TextOutput(BaseModel):
    text: str


SIMPLE_TEXT = "This is a simple text response for testing."


@book.tool(
    name="test_simple_text",
    title="Simple text",
    description="Returns one fixed sentence as text content (conformance: tools-call-simple-text).",
    output=TextOutput,
    read_only=True,
    destructive=False,
    open_world=False,
    idempotent=True,
    invoking="Answering…",
    invoked="Answered",
)
def test_simple_text(args: NoArguments, call: ToolCall) -> ToolResult:
    return ToolResult(structured=TextOutput(text=SIMPLE_TEXT), narration=SIMPLE_TEXT)


@book.tool(
    name="test_error_handling",
    title="Error handling",
    description="Always fails with a tool error result (conformance: tools-call-error).",
    output=TextOutput,
    read_only=True,
    destructive=False,
    open_world=False,
    idempotent=True,
    invoking="Failing on purpose…",
    invoked="Failed on purpose",
)
def test_error_handling(args: NoArguments, call: ToolCall) -> ToolResult:
    raise ToolError("This tool intentionally returns an error for testing", code="intentional_error")


class BlocksOutput(BaseModel):
    """The types of the content blocks after the narration."""

    blocks: list[str]


def _blocks(narration: str, *content: Image | Audio | EmbeddedResource) -> ToolResult:
    blocks = [block.to_wire()["type"] for block in content]
    return ToolResult(structured=BlocksOutput(blocks=blocks), narration=narration, content=content)


@book.tool(
    name="test_image_content",
    title="Image content",
    description="Returns a 1×1 red PNG as image content (conformance: tools-call-image).",
    output=BlocksOutput,
    read_only=True,
    destructive=False,
    open_world=False,
    idempotent=True,
    invoking="Drawing…",
    invoked="Drawn",
)
def test_image_content(args: NoArguments, call: ToolCall) -> ToolResult:
    return _blocks("A 1×1 red pixel.", Image(RED_PIXEL_PNG, "image/png"))


@book.tool(
    name="test_audio_content",
    title="Audio content",
    description="Returns a short silent WAV as audio content (conformance: tools-call-audio).",
    output=BlocksOutput,
    read_only=True,
    destructive=False,
    open_world=False,
    idempotent=True,
    invoking="Recording…",
    invoked="Recorded",
)
def test_audio_content(args: NoArguments, call: ToolCall) -> ToolResult:
    return _blocks("One millisecond of silence.", Audio(SILENT_WAV, "audio/wav"))


@book.tool(
    name="test_embedded_resource",
    title="Embedded resource",
    description="Returns a text resource embedded in the result (conformance: tools-call-embedded-resource).",
    output=BlocksOutput,
    read_only=True,
    destructive=False,
    open_world=False,
    idempotent=True,
    invoking="Embedding…",
    invoked="Embedded",
)
def test_embedded_resource(args: NoArguments, call: ToolCall) -> ToolResult:
    resource = EmbeddedResource("test://embedded-resource", "text/plain", text="This is an embedded resource content.")
    return _blocks("An embedded resource follows.", resource)


@book.tool(
    name="test_multiple_content_types",
    title="Mixed content",
    description="Returns text, an image and an embedded resource together (conformance: tools-call-mixed-content).",
    output=BlocksOutput,
    read_only=True,
    destructive=False,
    open_world=False,
    idempotent=True,
    invoking="Mixing…",
    invoked="Mixed",
)
def test_multiple_content_types(args: NoArguments, call: ToolCall) -> ToolResult:
    data = EmbeddedResource("test://mixed-content-resource", "application/json", text='{"test":"data","value":123}')
    return _blocks("Multiple content types test:", Image(RED_PIXEL_PNG, "image/png"), data)


class address(BaseModel):  # noqa: N801 - the suite looks for `$defs.address`, which pydantic names after the class
    model_config = ConfigDict(json_schema_extra={"$anchor": "addressDef"})

    street: str | None = Field(default=None, max_length=200)
    city: str | None = Field(default=None, max_length=200)


Address = address  # the field below is named `address` too, which would hide the class in its annotation


# JSON Schema 2020-12 keywords beyond what pydantic derives: published as they are, enforced by the validator below.
CONTACT_RULES: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
}


class ContactInput(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra=CONTACT_RULES)

    name: str | None = Field(default=None, max_length=200)
    address: Address | None = None
    contactMethod: Literal["phone", "email"] | None = None  # noqa: N815 - the suite's argument name
    phone: str | None = Field(default=None, max_length=50)
    email: str | None = Field(default=None, max_length=320)

    @model_validator(mode="after")
    def follows_the_contact_rules(self) -> ContactInput:
        if self.phone is None and self.email is None:
            raise ValueError("give a phone or an email")
        if self.contactMethod == "phone" and self.phone is None:
            raise ValueError("contactMethod 'phone' needs a phone")
        if self.contactMethod != "phone" and self.email is None:
            raise ValueError("without contactMethod 'phone', an email is needed")
        return self


class ContactOutput(BaseModel):
    reach: str


@book.tool(
    name="json_schema_2020_12_tool",
    title="JSON Schema 2020-12",
    description="Tool with JSON Schema 2020-12 features (conformance: json-schema-2020-12).",
    output=ContactOutput,
    read_only=True,
    destructive=False,
    open_world=False,
    idempotent=True,
    invoking="Checking the contact…",
    invoked="Checked",
)
def json_schema_2020_12_tool(args: ContactInput, call: ToolCall) -> ToolResult:
    reach = args.phone if args.contactMethod == "phone" else args.email
    assert reach is not None  # the validator saw to it
    return ToolResult(structured=ContactOutput(reach=reach), narration=f"Reach {args.name or 'them'} at {reach}.")


class HeaderInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    region: str = Field(max_length=100, json_schema_extra={"x-mcp-header": "Region"})


class HeaderOutput(BaseModel):
    region: str


@book.tool(
    name="test_header_parameter",
    title="Header parameter",
    description="Echoes an argument that clients mirror in the Mcp-Param-Region header "
    "(conformance: http-custom-header-server-validation).",
    output=HeaderOutput,
    read_only=True,
    destructive=False,
    open_world=False,
    idempotent=True,
    invoking="Reading the region…",
    invoked="Read",
)
def test_header_parameter(args: HeaderInput, call: ToolCall) -> ToolResult:
    return ToolResult(structured=HeaderOutput(region=args.region), narration=f"Region: {args.region}")
