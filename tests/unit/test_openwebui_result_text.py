"""The Open WebUI pipe's text of a result: it hands its model structuredContent itself, so the copy the server
writes into the text for text-only clients is not passed on a second time."""

from __future__ import annotations

import json
from types import ModuleType

import pytest
from openwebui_plugin import load_plugin
from widget_mcp.toolkit import DisplayWidget, ToolResult
from widget_mcp.toolkit.results import error_wire


@pytest.fixture(scope="module")
def pipe() -> ModuleType:
    return load_plugin("openwebui_widget_mcp_result_text")


def test_the_pipe_passes_on_the_narration_and_fallbacks_and_the_structured_content_once(pipe: ModuleType) -> None:
    structured = {"gameId": "g", "ply": 3}
    result = ToolResult(structured=structured, narration="White played e4.").to_wire(
        [DisplayWidget("text", {"text": "board"}, fallback="the board as text")]
    )
    assert pipe._content_text(result) == "White played e4.\nthe board as text"
    cited = pipe._result_text(result)
    assert cited.count('"ply"') == 1
    assert json.loads(cited.splitlines()[-1]) == structured


def test_an_error_s_sentence_reaches_the_pipe_without_the_structured_error_it_carries(pipe: ModuleType) -> None:
    result = error_wire("gone", "It is gone.", structured={"type": "dgui_error", "message": "It is gone."})
    assert pipe._content_text(result) == "It is gone."


def test_an_error_s_sentence_reaches_the_pipe_then_the_state_it_carries(pipe: ModuleType) -> None:
    result = error_wire("conflict", "The game moved on.", structured={"gameId": "g", "ply": 4})
    sentence, state = pipe._result_text(result).splitlines()
    assert (sentence, json.loads(state)) == ("The game moved on.", {"gameId": "g", "ply": 4})
