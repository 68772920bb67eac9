"""The runtime around tool handlers: sync and async handlers, failure masking, observer reports."""

from __future__ import annotations

import json
import threading
from typing import Literal

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel, ConfigDict
from widget_mcp.toolkit import ToolBook, ToolCall, ToolError, ToolResult, WidgetSpec
from widget_mcp.toolkit.bundles import BundleFiles, BundleManifest
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


class Refusal(BaseModel):
    kind: Literal["refusal"]
    reason: str


class Payload(BaseModel):
    structured: Literal["thread", "refusal", "undeclared", "none"]


@book.tool(
    name="refuse",
    title="Refuse",
    description="Refuses with the structured payload asked for.",
    output=Thread,
    error_output=Refusal,
    read_only=True,
    destructive=False,
    open_world=False,
    invoking="Refusing…",
    invoked="Refused",
)
def refuse(args: Payload, call: ToolCall) -> ToolResult:
    structured = {
        "thread": Thread(name="main"),
        "refusal": Refusal(kind="refusal", reason="asked to"),
        "undeclared": Empty(),
        "none": None,
    }[args.structured]
    raise ToolError("Refused, as asked.", code="refused", details={"fields": {"x": "bad"}}, structured=structured)


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
    assert refused["_meta"]["error"]["code"] == "invalid_arguments"
    assert broken["_meta"]["error"]["code"] == "internal_error"
    assert "internal_field" not in str(broken)  # the model's insides stay in the log
    assert any("internal_field" in (r.exc_text or "") for r in caplog.records)
    assert recorder.reports == [("misbuilt", "invalid_arguments"), ("misbuilt", "internal_error")]


@pytest.mark.parametrize(
    ("payload", "structured"),
    [("thread", {"name": "main"}), ("refusal", {"kind": "refusal", "reason": "asked to"}), ("none", None)],
)
async def test_an_error_carries_structured_content_only_as_a_declared_model_that_its_output_schema_admits(
    payload: str, structured: dict[str, str] | None
) -> None:
    runtime = ToolRuntime([book], TEMPLATES, BundleManifest())
    (listed,) = [t for t in runtime.tool_list if t["name"] == "refuse"]
    result = await runtime.call("refuse", {"structured": payload}, None)
    assert result.get("structuredContent") == structured
    assert result["isError"] is True
    # The sentence, then what the error carries as structuredContent, serialized for clients that read only text.
    assert result["content"][0] == {"type": "text", "text": "Refused, as asked."}
    assert [json.loads(block["text"]) for block in result["content"][1:]] == (
        [] if structured is None else [structured]
    )
    assert result["_meta"] == {"error": {"code": "refused", "message": "Refused, as asked.", "fields": {"x": "bad"}}}
    schema = Draft202012Validator(listed["outputSchema"])
    assert listed["outputSchema"]["type"] == "object"  # hosts require it at the top, union or not
    assert listed["outputSchema"]["anyOf"][0] == Thread.model_json_schema()  # a success's shape first, written out
    assert schema.is_valid(result.get("structuredContent", {"name": "any thread"}))
    assert not schema.is_valid({"reason": "a refusal without its kind"})


async def test_a_structured_payload_the_tool_does_not_declare_is_a_logged_internal_error_not_a_schema_mismatch(
    caplog: pytest.LogCaptureFixture,
) -> None:
    recorder = Recorder()
    runtime = ToolRuntime([book], TEMPLATES, BundleManifest(), observer=recorder)
    result = await runtime.call("refuse", {"structured": "undeclared"}, None)
    assert "structuredContent" not in result
    assert result["_meta"]["error"]["code"] == "internal_error"
    assert recorder.reports == [("refuse", "internal_error")]
    assert any("structured Empty" in r.getMessage() and r.levelname == "ERROR" for r in caplog.records)


def _widget_book(entry: str) -> ToolBook:
    widget_book = ToolBook()

    @widget_book.tool(
        name="shown",
        title="Shown",
        description="Shows a widget.",
        output=Thread,
        read_only=True,
        destructive=False,
        open_world=False,
        invoking="Showing…",
        invoked="Shown",
        widget=WidgetSpec(name="tips", entry=entry, title="Tips", description="Shows the tips."),
    )
    def shown(args: Empty, call: ToolCall) -> ToolResult:
        return ToolResult(structured=Thread(name="x"))

    return widget_book


BUILT = BundleManifest({"tips": BundleFiles(js="assets/tips-abc.js")})


def test_a_widget_entry_the_built_manifest_lacks_is_named_in_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    ToolRuntime([_widget_book("tip")], TEMPLATES, BUILT)
    assert [r.getMessage() for r in caplog.records if "bundle manifest" in r.getMessage()] == [
        "widget entries missing from the bundle manifest: tip; build the widgets, or match each "
        "WidgetSpec(entry=...) to an entry name the widget build writes"
    ]


@pytest.mark.parametrize("manifest", [BUILT, BundleManifest()], ids=["built", "not-built-yet"])
def test_no_warning_when_the_entry_is_built_or_nothing_is_built_yet(
    manifest: BundleManifest, caplog: pytest.LogCaptureFixture
) -> None:
    ToolRuntime([_widget_book("tips")], TEMPLATES, manifest)
    assert not [r for r in caplog.records if "bundle manifest" in r.getMessage()]
