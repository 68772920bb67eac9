"""Fixtures for the suite's input-request, progress and logging scenarios, built on `ToolCall.ask`, `progress`
and `log` as any tool would use them."""

from __future__ import annotations

from collections.abc import Callable

import anyio
from pydantic import BaseModel, ConfigDict, Field
from widget_mcp.toolkit import Elicitation, Elicited, InputRequest, ListRoots, Sampled, Sampling, ToolCall, ToolResult
from widget_mcp.toolkit.tools import Handler

from conformance_fixtures.tools import NoArguments, TextOutput, book


def _text(text: str) -> ToolResult:
    return ToolResult(structured=TextOutput(text=text), narration=text)


def _fixture(name: str, description: str, *, read_only: bool = True) -> Callable[[Handler], Handler]:
    return book.tool(
        name=name,
        title=name.replace("_", " ").capitalize(),
        description=description,
        output=TextOutput,
        read_only=read_only,
        destructive=False,
        open_world=False,
        invoking="Working…",
        invoked="Done",
    )


def _form(**properties: str) -> dict[str, object]:
    return {
        "type": "object",
        "properties": {name: {"type": kind} for name, kind in properties.items()},
        "required": list(properties),
    }


NAME = Elicitation("What is your name?", _form(name="string"))
CONFIRM = Elicitation("Please confirm", _form(ok="boolean"))


def _content(answer: object) -> dict[str, object]:
    return answer.content if isinstance(answer, Elicited) else {}


@_fixture("test_input_required_result_elicitation", "Asks the user's name, then greets them (input-required-result-*).")
def elicitation(args: NoArguments, call: ToolCall) -> ToolResult:
    answer = call.ask(NAME, key="user_name")
    return _text(f"Hello, {answer.content.get('name', 'stranger')}!")


@_fixture("test_input_required_result_sampling", "Asks the client's model a question, then repeats its answer.")
def sampling(args: NoArguments, call: ToolCall) -> ToolResult:
    answer = call.ask(Sampling("What is the capital of France?", max_tokens=100), key="capital_question")
    return _text(f"The model said: {answer.text}")


@_fixture("test_input_required_result_list_roots", "Asks for the client's roots, then lists them.")
def list_roots(args: NoArguments, call: ToolCall) -> ToolResult:
    answer = call.ask(ListRoots(), key="client_roots")
    return _text("Roots: " + (", ".join(r.uri for r in answer.roots) or "none"))


@_fixture("test_input_required_result_request_state", "Asks for a confirmation carried by a signed requestState.")
def request_state(args: NoArguments, call: ToolCall) -> ToolResult:
    answer = call.ask(CONFIRM, key="confirm")
    return _text(f"state-ok: the requestState was verified; confirmed={answer.content.get('ok')}")


@_fixture("test_input_required_result_tampered_state", "Asks for a confirmation; a tampered requestState is refused.")
def tampered_state(args: NoArguments, call: ToolCall) -> ToolResult:
    answer = call.ask(CONFIRM, key="confirm")
    return _text(f"confirmed={answer.content.get('ok')}")


@_fixture("test_input_required_result_multiple_inputs", "Asks for a name, a model greeting and the roots at once.")
def multiple_inputs(args: NoArguments, call: ToolCall) -> ToolResult:
    answers = call.ask_all(
        {"user_name": NAME, "greeting": Sampling("Generate a greeting", max_tokens=50), "client_roots": ListRoots()}
    )
    greeting = answers["greeting"]
    return _text(
        f"{greeting.text if isinstance(greeting, Sampled) else 'Hello'}, {_content(answers['user_name']).get('name')}"
    )


@_fixture("test_input_required_result_multi_round", "Asks a name, then a colour, in two rounds.")
def multi_round(args: NoArguments, call: ToolCall) -> ToolResult:
    name = call.ask(Elicitation("Step 1: What is your name?", _form(name="string")), key="step1").content
    color = call.ask(Elicitation("Step 2: What is your favorite color?", _form(color="string")), key="step2").content
    return _text(f"{name.get('name')} likes {color.get('color')}.")


@_fixture("test_input_required_result_capabilities", "Asks only for what the client declared it can answer.")
def capabilities(args: NoArguments, call: ToolCall) -> ToolResult:
    wanted: dict[str, InputRequest] = {"user_name": NAME, "capital_question": Sampling("Capital of France?")}
    askable = {key: request for key, request in wanted.items() if call.can_ask(request)}
    if not askable:
        return _text("This client declared no capability to answer an input request.")
    answers = call.ask_all(askable)
    return _text(f"Answered: {', '.join(sorted(answers))}")


@_fixture("test_missing_capability", "Needs sampling: refused when the client did not declare it (server-stateless).")
def missing_capability(args: NoArguments, call: ToolCall) -> ToolResult:
    answer = call.ask(Sampling("Say hello", max_tokens=20), key="hello")
    return _text(answer.text or "")


@_fixture("test_streaming_elicitation", "Elicits through an input request, never a request on the stream.")
def streaming_elicitation(args: NoArguments, call: ToolCall) -> ToolResult:
    answer = call.ask(NAME, key="user_name")
    return _text(f"Hello, {answer.content.get('name')}!")


@_fixture("test_logging_tool", "Logs at info: only a request that set a logLevel gets the messages (server-stateless).")
def logging_tool(args: NoArguments, call: ToolCall) -> ToolResult:
    call.log("info", "test_logging_tool ran")
    return _text("Logged at info.")


@_fixture("test_tool_with_logging", "Sends three log messages while it runs (tools-call-with-logging).")
async def with_logging(args: NoArguments, call: ToolCall) -> ToolResult:
    call.log("info", "Tool execution started")
    await anyio.sleep(0.05)
    call.log("info", "Tool processing data")
    await anyio.sleep(0.05)
    call.log("info", "Tool execution completed")
    return _text("Tool with logging executed successfully")


@_fixture("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100 while it runs (tools-call-with-progress).")
async def with_progress(args: NoArguments, call: ToolCall) -> ToolResult:
    for done in (0, 50, 100):
        call.progress(done, 100, f"{done}% done")
        if done < 100:
            await anyio.sleep(0.05)
    return _text("Tool with progress executed successfully")


class MessageArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")
    message: str = Field(max_length=500)


class PromptArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")
    prompt: str = Field(max_length=2000)


@_fixture("test_elicitation", "Asks the user for a username and an email (tools-call-elicitation).")
def elicit_user(args: MessageArguments, call: ToolCall) -> ToolResult:
    form = {
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"},
        },
        "required": ["username", "email"],
    }
    answer = call.ask(Elicitation(args.message, form), key="user_info")
    return _text(f"User response: action={answer.action}, content={answer.content}")


@_fixture("test_sampling", "Asks the client's model to answer a prompt (tools-call-sampling).")
def sample(args: PromptArguments, call: ToolCall) -> ToolResult:
    answer = call.ask(Sampling(args.prompt, max_tokens=100), key="completion")
    return _text(f"LLM response: {answer.text}")


DEFAULTS_FORM = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {
            "type": "string",
            "description": "User status",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "description": "Verification status", "default": True},
    },
    "required": [],
}


@_fixture("test_elicitation_sep1034_defaults", "Elicits a form whose fields have defaults (SEP-1034).")
def elicit_defaults(args: NoArguments, call: ToolCall) -> ToolResult:
    answer = call.ask(Elicitation("Please review and update the form fields with defaults", DEFAULTS_FORM), key="form")
    return _text(f"Elicitation completed: action={answer.action}, content={answer.content}")


ENUMS_FORM = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {
            "type": "string",
            "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"},
            ],
        },
        "legacyEnum": {
            "type": "string",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
        "titledMulti": {
            "type": "array",
            "items": {
                "anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"},
                ]
            },
        },
    },
    "required": [],
}


@_fixture("test_elicitation_sep1330_enums", "Elicits a form with every enum variant (SEP-1330).")
def elicit_enums(args: NoArguments, call: ToolCall) -> ToolResult:
    answer = call.ask(Elicitation("Please select options from the enum fields", ENUMS_FORM), key="form")
    return _text(f"Elicitation completed: action={answer.action}, content={answer.content}")
