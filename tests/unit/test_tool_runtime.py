"""The runtime around tool handlers: sync and async handlers, failure masking, observer reports."""

from __future__ import annotations

import threading

import pytest
from pydantic import BaseModel, ConfigDict
from widget_mcp.toolkit import ToolBook, ToolCall, ToolResult
from widget_mcp.toolkit.bundles import BundleManifest
from widget_mcp.toolkit.runtime import TemplateSettings, ToolRuntime

TEMPLATES = TemplateSettings(base_url="https://cdn.example.com/w", origin="https://cdn.example.com")


class Empty(BaseModel):
    pass


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Thread(BaseModel):
    name: str


book = ToolBook()


@book.tool(
    name="where",
    title="Where",
    description="Reports the thread.",
    output=Thread,
    read_only=True,
    destructive=False,
    open_world=False,
    invoking="Looking…",
    invoked="Found",
)
def where(args: Empty, call: ToolCall) -> ToolResult:
    return ToolResult(structured=Thread(name=threading.current_thread().name), narration="here")


@book.tool(
    name="crash",
    title="Crash",
    description="Fails unexpectedly.",
    output=Thread,
    read_only=True,
    destructive=False,
    open_world=False,
    invoking="Crashing…",
    invoked="Crashed",
)
async def crash(args: Empty, call: ToolCall) -> ToolResult:
    raise KeyError("/srv/secret/path.py")


@book.tool(
    name="misbuilt",
    title="Misbuilt",
    description="Builds its own model wrongly: a server bug, whatever pydantic calls it.",
    output=Thread,
    read_only=True,
    destructive=False,
    open_world=False,
    invoking="Building…",
    invoked="Built",
)
def misbuilt(args: Strict, call: ToolCall) -> ToolResult:
    return ToolResult(structured=Thread.model_validate({"internal_field": 1}), narration="never")


class Recorder:
    def __init__(self) -> None:
        self.reports: list[tuple[str, str | None]] = []

    def started(self, tool: str, call: ToolCall) -> None:
        pass

    def finished(self, tool: str, error_code: str | None, seconds: float) -> None:
        self.reports.append((tool, error_code))


@pytest.mark.parametrize("in_thread", [False, True])
async def test_sync_handlers_run_inline_on_lambda_and_off_the_loop_on_a_concurrent_server(in_thread: bool) -> None:
    runtime = ToolRuntime([book], TEMPLATES, BundleManifest(), sync_in_thread=in_thread)
    result = await runtime.call("where", {}, None)
    assert (result["structuredContent"]["name"] != threading.current_thread().name) is in_thread


async def test_an_unexpected_exception_is_logged_and_masked(caplog: pytest.LogCaptureFixture) -> None:
    recorder = Recorder()
    runtime = ToolRuntime([book], TEMPLATES, BundleManifest(), observer=recorder)
    result = await runtime.call("crash", {}, None)
    assert result == {
        "content": [{"type": "text", "text": "crash failed because of an error on the server; it has been logged."}],
        "structuredContent": {
            "error": {
                "code": "internal_error",
                "message": "crash failed because of an error on the server; it has been logged.",
            }
        },
        "isError": True,
        "_meta": {
            "error": {
                "code": "internal_error",
                "message": "crash failed because of an error on the server; it has been logged.",
            }
        },
    }
    assert "/srv/secret" not in str(result)
    assert any("/srv/secret" in (r.exc_text or "") for r in caplog.records)
    assert recorder.reports == [("crash", "internal_error")]


async def test_only_the_arguments_failing_the_input_model_are_invalid_arguments_a_handlers_pydantic_error_is_masked(
    caplog: pytest.LogCaptureFixture,
) -> None:
    recorder = Recorder()
    runtime = ToolRuntime([book], TEMPLATES, BundleManifest(), observer=recorder)
    refused = await runtime.call("misbuilt", {"extra": 1}, None)
    broken = await runtime.call("misbuilt", {}, None)
    assert refused["structuredContent"]["error"]["code"] == "invalid_arguments"
    assert broken["structuredContent"]["error"]["code"] == "internal_error"
    assert "internal_field" not in str(broken)  # the model's insides stay in the log
    assert any("internal_field" in (r.exc_text or "") for r in caplog.records)
    assert recorder.reports == [("misbuilt", "invalid_arguments"), ("misbuilt", "internal_error")]
