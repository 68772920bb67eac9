"""Fixture prompts with the names, arguments and messages the conformance suite's prompt scenarios expect."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field
from widget_mcp.toolkit import Elicitation, EmbeddedResource, Image, PromptCall, PromptMessage, complete_from

from conformance_fixtures.media import RED_PIXEL_PNG
from conformance_fixtures.tools import book


@book.prompt(
    name="test_simple_prompt",
    title="Simple prompt",
    description="One fixed user message (conformance: prompts-get-simple).",
)
def test_simple_prompt() -> list[PromptMessage]:
    return [PromptMessage("user", "This is a simple prompt for testing.")]


class TwoArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")

    arg1: str = Field(max_length=200, description="First test argument")
    arg2: str = Field(max_length=200, description="Second test argument")


@book.prompt(
    name="test_prompt_with_arguments",
    title="Prompt with arguments",
    description="Puts both arguments into its message (conformance: prompts-get-with-args, completion-complete).",
    complete={"arg1": complete_from(["paris", "park", "party", "test", "testing"])},
)
def test_prompt_with_arguments(args: TwoArguments) -> list[PromptMessage]:
    return [PromptMessage("user", f"Prompt with arguments: arg1='{args.arg1}', arg2='{args.arg2}'")]


class ResourceArgument(BaseModel):
    model_config = ConfigDict(extra="forbid")

    resourceUri: str = Field(  # noqa: N815 - the suite's argument name
        max_length=2000, pattern=r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$", description="URI of the resource to embed"
    )


@book.prompt(
    name="test_prompt_with_embedded_resource",
    title="Prompt with an embedded resource",
    description="Embeds a text resource under the given URI (conformance: prompts-get-embedded-resource).",
)
def test_prompt_with_embedded_resource(args: ResourceArgument) -> list[PromptMessage]:
    resource = EmbeddedResource(args.resourceUri, "text/plain", text="Embedded resource content for testing.")
    return [PromptMessage("user", resource), PromptMessage("user", "Please process the embedded resource above.")]


@book.prompt(
    name="test_prompt_with_image",
    title="Prompt with an image",
    description="An image, then a request to analyze it (conformance: prompts-get-with-image).",
)
def test_prompt_with_image() -> list[PromptMessage]:
    image = Image(RED_PIXEL_PNG, "image/png")
    return [PromptMessage("user", image), PromptMessage("user", "Please analyze the image above.")]


CONTEXT = Elicitation(
    "What context should the prompt use?",
    {"type": "object", "properties": {"context": {"type": "string"}}, "required": ["context"]},
)


@book.prompt(
    name="test_input_required_result_prompt",
    title="Prompt that asks first",
    description="Asks the user for context, then puts it in its message (conformance: "
    "input-required-result-non-tool-request).",
)
def test_input_required_result_prompt(call: PromptCall) -> list[PromptMessage]:
    answer = call.ask(CONTEXT, key="user_context")
    context = answer.content.get("context") if answer.accepted else None
    return [PromptMessage("user", f"Use this context: {context or 'none given'}.")]
