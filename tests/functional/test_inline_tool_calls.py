"""A `tools/call` of a sync tool (which Lambda runs inline) is served without the event loop (the SDK kernel
driven by hand); its answer is byte for byte the answer of the full path (`serve_one` on the loop), for a corpus of
calls in both protocol eras: widget results, tool errors, invalid arguments, unknown and app-only tools, chess and
forms state, request `_meta`, notifications. Anything else, async tools included, still takes the full path."""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import pytest
from pydantic import BaseModel
from widget_mcp.server import build_server
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit import ToolBook, ToolCall, ToolResult
from widget_mcp.toolkit.bundles import BundleManifest
from widget_mcp.toolkit.runtime import TemplateSettings, ToolRuntime
from widget_mcp.transport.endpoint import McpEndpoint
from widget_mcp.transport.guards import HostAllowlist
from widget_mcp.transport.replies import HttpReply
from widget_mcp.wiring import build_core

from tests.seed_forms import FLIGHT

HOST = "api.example.com"
HEADERS = {"host": HOST, "content-type": "application/json", "accept": "application/json, text/event-stream"}
MODERN = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "inline-test", "version": "1.0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


class NoArgs(BaseModel):
    pass


class LoopSeen(BaseModel):
    running: bool


# Capability ids (and the form's answer key) the apps hand out, the same sequence for each endpoint, so both stores
# hold the same state.
GAME, FORM, KEY = "inlinegame00000000000001", "inlineform00000000000002", "inlinekey000000000000003"
# ChatGPT's display signal: the form is shown as a widget, which answers it with its key (toolkit/client_surface.py).
WIDGET_HOST = {"openai/locale": "en-US"}


def _endpoint(inline: bool) -> tuple[McpEndpoint, ToolRuntime]:
    settings = Settings(allowed_hosts=(HOST,), table_name="state")
    runtime = build_core(settings, store=InMemoryDocumentStore()).runtime
    endpoint = McpEndpoint(
        build_server(runtime),
        allowed_hosts=HostAllowlist(settings.allowed_hosts),
        max_body_bytes=settings.max_body_bytes,
        max_json_depth=settings.max_json_depth,
        answer_cache=False,
        inline_tools=runtime.runs_inline if inline else None,
    )
    return endpoint, runtime


@pytest.fixture(autouse=True)
def _no_metrics(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")


def _fixed_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """The apps' capability ids (`secrets.token_urlsafe`) in a fixed sequence: the game's, then the form's answer
    key (drawn before the form is stored), then the form's."""
    ids = itertools.cycle([GAME, KEY, FORM])
    monkeypatch.setattr("secrets.token_urlsafe", lambda nbytes=None: next(ids))


def call(name: Any, arguments: Any = None, meta: dict[str, Any] | None = None, rid: str | int = 1) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    if meta is not None:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


def corpus() -> list[dict[str, Any]]:
    """Calls in order: later ones use the game and the form earlier ones create."""
    return [
        call("display_demo", {"message": "hello"}),
        call("display_demo", {"message": "héllo ✓ wörld"}, rid="call-2"),
        call("display_demo", {"message": "hi"}, {"progressToken": 7, "openai/subject": "alice", "openai/locale": "fr"}),
        call("display_demo", {"message": "boom", "fail_after_widgets": True}),  # a tool error result
        call("display_demo", {}),  # a required argument missing
        call("display_demo", {"message": "hi", "colour": "red"}),  # an argument the tool does not take
        call("display_demo", {"message": ""}),  # a constraint broken
        call("display_demo", "not an object"),  # params the protocol's own models refuse
        call("display_demo"),  # no arguments at all
        call("no_such_tool", {}),  # unknown tool: a protocol error
        call(42, {}),  # a name that is not a string
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"arguments": {}}},  # no name
        call("chess_new_game", {}),
        call("chess_move", {"gameId": GAME, "move": "e4", "expectedPly": 0}),
        call("chess_move", {"gameId": GAME, "move": "e4", "expectedPly": 0}),  # a retry: the same answer
        call("chess_move", {"gameId": GAME, "move": "Ke7"}),  # illegal
        call("chess_move", {"gameId": GAME, "move": "zz9"}),  # not a move
        call("chess_move", {"gameId": GAME, "move": "e5", "expectedPly": 0}),  # conflict
        call("chess_show_game", {"gameId": GAME}),
        call("chess_show_game", {"gameId": GAME}, {"openai/subject": "bob"}),  # another principal: not found
        call("chess_list_games", {}),
        call("chess_list_games", {}, {"openai/subject": "alice"}),
        call("chess_resign", {"gameId": GAME}),
        call("chess_move", {"gameId": GAME, "move": "d5"}),  # game over
        call("ask_question", {"question": FLIGHT, "title": "Trip"}, WIDGET_HOST),
        call("submit_form", {"formId": FORM, "data": {"destinationCity": "Oslo"}}),  # app-only, and without the key
        call("submit_form", {"formId": FORM, "data": {"destinationCity": "Oslo"}, "answerKey": KEY}, WIDGET_HOST),
        call(  # a field missing, then the answer
            "submit_form",
            {"formId": FORM, "data": {"destinationCity": "Oslo", "departureDate": "2026-12-01"}, "answerKey": KEY},
            WIDGET_HOST,
        ),
        call("get_form_response", {"formId": FORM}),
        call("ask_question", {"question": "{not json"}),  # an invalid schema: dgui_error
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]


def in_era(message: dict[str, Any], era: str) -> tuple[dict[str, Any], dict[str, str]]:
    if era != MODERN:
        return message, {"mcp-protocol-version": era}
    params = dict(message.get("params", {}))
    params["_meta"] = {**params.get("_meta", {}), **ENVELOPE}
    headers = {"mcp-protocol-version": MODERN, "mcp-method": message["method"]}
    if isinstance(params.get("name"), str):
        headers["mcp-name"] = params["name"]
    return {**message, "params": params}, headers


async def answer(endpoint: McpEndpoint, message: dict[str, Any], headers: dict[str, str]) -> tuple[HttpReply, bool]:
    """The reply, and whether it came back without the event loop."""
    pending = endpoint.begin("POST", {**HEADERS, **headers}, json.dumps(message).encode())
    if isinstance(pending, HttpReply):
        return pending, True
    return await pending, False


@pytest.mark.parametrize("era", ["2025-11-25", MODERN])
async def test_inline_answers_are_byte_identical_to_the_full_path_in_both_eras(
    era: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    replies: dict[bool, list[tuple[HttpReply, bool]]] = {}
    for inline in (False, True):
        _fixed_ids(monkeypatch)
        endpoint, runtime = _endpoint(inline)
        replies[inline] = [await answer(endpoint, *in_era(message, era)) for message in corpus()]
    served_inline = 0
    pairs = zip(corpus(), replies[False], replies[True], strict=True)
    for message, (full, full_at_once), (fast, fast_at_once) in pairs:
        assert fast == full, (message, full.body, fast.body)
        # Refusals and notifications come back at once on both; a call of a tool that never waits, only inline.
        inline = not full_at_once and "id" in message and runtime.runs_inline(message["params"].get("name"))
        assert fast_at_once == (full_at_once or inline), message
        served_inline += inline
    assert served_inline >= 25
    bodies = [json.loads(reply.body) for reply, _ in replies[True] if reply.body]
    # The corpus reaches what it means to: results, tool errors and protocol errors.
    assert sum("error" in body for body in bodies) >= 3
    assert sum(body.get("result", {}).get("isError") is True for body in bodies) >= 6
    games = [body["result"] for body in bodies if body.get("result", {}).get("structuredContent", {}).get("fen")]
    assert [game["structuredContent"]["ply"] for game in games][:3] == [0, 1, 1]
    assert any(body.get("result", {}).get("structuredContent", {}).get("type") == "dgui_response" for body in bodies)


async def test_sync_tools_run_inline_on_lambda_and_none_on_a_concurrent_server() -> None:
    settings = Settings(allowed_hosts=(HOST,), table_name="state")
    lambda_runtime = build_core(settings, store=InMemoryDocumentStore()).runtime
    local_runtime = build_core(settings, store=InMemoryDocumentStore(), concurrent=True).runtime
    assert all(not spec.is_async for spec in lambda_runtime.tools.values())  # every served tool is sync
    assert all(lambda_runtime.runs_inline(name) for name in lambda_runtime.tools)
    # A local server runs sync tools in worker threads, which takes the loop.
    assert not any(local_runtime.runs_inline(name) for name in local_runtime.tools)
    assert not lambda_runtime.runs_inline("no_such_tool")
    assert not lambda_runtime.runs_inline(None)


async def test_an_async_tool_that_needs_the_running_loop_is_served_on_it_on_lambda() -> None:
    book = ToolBook()

    @book.tool(
        name="loop_user",
        title="Loop user",
        description="Schedules nothing, but asks for the running loop, as async code may without awaiting.",
        output=LoopSeen,
        read_only=True,
        destructive=False,
        open_world=False,
        invoking="Looking…",
        invoked="Looked",
    )
    async def loop_user(args: NoArgs, call: ToolCall) -> ToolResult:
        return ToolResult(structured=LoopSeen(running=asyncio.get_running_loop().is_running()), narration="seen")

    templates = TemplateSettings(base_url="https://cdn.example.com/w", origin="https://cdn.example.com")
    runtime = ToolRuntime([book], templates, BundleManifest())
    endpoint = McpEndpoint(
        build_server(runtime),
        allowed_hosts=HostAllowlist((HOST,)),
        max_body_bytes=1_000_000,
        max_json_depth=32,
        answer_cache=False,
        inline_tools=runtime.runs_inline,
    )
    reply, at_once = await answer(endpoint, *in_era(call("loop_user", {}), "2025-11-25"))
    result = json.loads(reply.body)["result"]
    assert (result["structuredContent"], result.get("isError", False), at_once) == ({"running": True}, False, False)
