"""Fixtures for the suite's tasks scenarios (the `io.modelcontextprotocol/tasks` extension), built on
`task_support` and `ToolCall.background` as any tool would use them."""

from __future__ import annotations

from collections.abc import Callable

import anyio
from pydantic import BaseModel, ConfigDict, Field
from widget_mcp.toolkit import Elicitation, ToolCall, ToolError, ToolResult
from widget_mcp.toolkit.tools import Handler, TaskSupport

from conformance_fixtures.tools import NoArguments, TextOutput, book

# How often long work looks whether its task was cancelled.
CANCEL_CHECK_SECONDS = 0.25


def _text(text: str) -> ToolResult:
    return ToolResult(structured=TextOutput(text=text), narration=text)


def _fixture(name: str, description: str, tasks: TaskSupport) -> Callable[[Handler], Handler]:
    return book.tool(
        name=name,
        title=name.replace("_", " ").capitalize(),
        description=description,
        output=TextOutput,
        read_only=True,
        destructive=False,
        open_world=False,
        invoking="Working…",
        invoked="Done",
        task_support=tasks,
    )


class GreetArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=200)


@_fixture("greet", "Greets by name, at once (never a task).", "forbidden")
def greet(args: GreetArguments, call: ToolCall) -> ToolResult:
    return _text(f"Hello, {args.name}!")


class ComputeArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seconds: float = Field(default=1, ge=0, le=120)
    label: str = Field(default="", max_length=200)


@_fixture("slow_compute", "Works for `seconds` seconds as a task, then reports its label.", "optional")
async def slow_compute(args: ComputeArguments, call: ToolCall) -> ToolResult:
    call.background()
    waited = 0.0
    while waited < args.seconds:
        step = min(CANCEL_CHECK_SECONDS, args.seconds - waited)
        await anyio.sleep(step)
        waited += step
        if call.cancelled():
            break
    return _text(f"Computed {args.label or 'the job'} in {args.seconds:g} s.")


@_fixture("failing_job", "Runs as a task, then fails as a tool error after about a second.", "required")
async def failing_job(args: NoArguments, call: ToolCall) -> ToolResult:
    call.background()
    await anyio.sleep(1)
    raise ToolError("The job failed, as this one always does.", code="job_failed")


@_fixture("protocol_error_job", "Runs as a task, then crashes: the task fails with a JSON-RPC error.", "optional")
def protocol_error_job(args: NoArguments, call: ToolCall) -> ToolResult:
    call.background()
    raise RuntimeError("protocol_error_job crashes on purpose")


class DeleteArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")
    filename: str = Field(max_length=200)


CONFIRM = Elicitation("Delete this file?", {"type": "object", "properties": {"confirm": {"type": "boolean"}}})


@_fixture("confirm_delete", "As a task, asks to confirm deleting a file, then reports the answer.", "optional")
def confirm_delete(args: DeleteArguments, call: ToolCall) -> ToolResult:
    call.background()
    answer = call.ask(CONFIRM, key="confirm")
    deleted = answer.accepted and answer.content.get("confirm") is True
    return _text(f"{args.filename} {'deleted' if deleted else 'kept'}.")


@_fixture("multi_input", "As a task, asks two questions at once, then reports both answers.", "optional")
def multi_input(args: NoArguments, call: ToolCall) -> ToolResult:
    call.background()
    answers = call.ask_all(
        {
            "name": Elicitation("What is your name?", {"type": "object", "properties": {"name": {"type": "string"}}}),
            "confirm": Elicitation("Go ahead?", {"type": "object", "properties": {"confirm": {"type": "boolean"}}}),
        }
    )
    name = answers["name"]
    return _text(f"Answered {len(answers)} questions; name: {getattr(name, 'content', {}).get('name')}.")


NAME = Elicitation(
    "What is your name?", {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
)


@_fixture("test_tool_with_task", "Asks a name in the request, then greets as a task (MRTR, then a task).", "required")
def with_task(args: NoArguments, call: ToolCall) -> ToolResult:
    answer = call.ask(NAME, key="user_name")
    call.background()
    return _text(f"Hello, {answer.content.get('name')}, from a task!")
