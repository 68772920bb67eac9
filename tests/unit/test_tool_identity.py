"""A tool that declares `needs_identity=True` is answered identity_required, before its handler runs, when a call
carries no user identity; with one (ChatGPT's openai/subject, as the test clients send) it runs."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from widget_mcp.server import build_runtime
from widget_mcp.settings import Settings
from widget_mcp.toolkit import ToolBook, ToolCall, ToolResult


class NoArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Who(BaseModel):
    member: str


def book_of(ran: list[str]) -> ToolBook:
    book = ToolBook()

    @book.tool(
        name="my_member_id",
        title="My member id",
        description="Answers who calls.",
        output=Who,
        read_only=True,
        destructive=False,
        open_world=False,
        invoking="…",
        invoked="Done",
        needs_identity=True,
    )
    def my_member_id(args: NoArgs, call: ToolCall) -> ToolResult:
        ran.append(call.principal.key)
        return ToolResult(structured=Who(member=call.principal.key), narration="You.")

    return book


async def test_a_tool_needing_identity_refuses_a_caller_without_one_before_its_handler_runs() -> None:
    ran: list[str] = []
    runtime = build_runtime(Settings(), [book_of(ran)])

    refused = await runtime.call("my_member_id", {}, None)

    assert refused["isError"] is True
    assert refused["_meta"]["error"]["code"] == "identity_required"
    assert "my_member_id works only for an identified user" in refused["content"][0]["text"]
    assert ran == []


async def test_a_tool_needing_identity_runs_for_a_caller_the_host_names() -> None:
    ran: list[str] = []
    runtime = build_runtime(Settings(), [book_of(ran)])

    answered = await runtime.call("my_member_id", {}, {"openai/subject": "v1/alice"})

    assert answered.get("isError") is not True, answered
    assert answered["structuredContent"] == {"member": "openai:v1/alice"}
    assert ran == ["openai:v1/alice"]
