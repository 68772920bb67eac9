"""Which form each client gets, through the official client over HTTP in both eras: the widget where the client
shows widgets (MCP Apps declared, or ChatGPT's signals), its own form where it elicits, otherwise a text fallback
listing every field, answered through record_form_answer; and submit_form only with the widget's answer key."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from form_keys import MCP_APPS
from mcp import Client
from mcp_types import ElicitRequestParams, ElicitResult
from servers import serve
from tool_results import assert_conforms, error_of, narration_of, output_schema, structured
from widget_mcp.apps.forms.answer_keys import ANSWER_KEY_META
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit.client_surface import CHATGPT_SIGNALS, app_only
from widget_mcp.wiring import build_app, build_core

ERAS = ["2026-07-28", "legacy"]
QUESTION = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "title": "City", "maxLength": 20},
        "nights": {"type": "integer", "title": "Nights", "minimum": 1, "maximum": 30},
        "room": {"type": "string", "enum": ["single", "double"]},
        "guest": {"type": "object", "properties": {"name": {"type": "string"}}},
    },
    "required": ["city", "nights"],
}
FLAT = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
ANSWER = {"city": "Oslo", "nights": 2}


@pytest.fixture
def base_url(settings: Settings) -> Iterator[str]:
    with serve(build_app(build_core(settings, concurrent=True, store=InMemoryDocumentStore()))) as url:
        yield url


async def _elicit(context: Any, params: ElicitRequestParams) -> ElicitResult:
    return ElicitResult(action="accept", content={"city": "Bergen"})


def _client(base_url: str, era: str, *, apps: bool = False, elicits: bool = False) -> Client:
    return Client(
        f"{base_url}/mcp",
        mode=era,  # type: ignore[arg-type]
        extensions=[MCP_APPS] if apps else [],
        elicitation_callback=_elicit if elicits else None,
    )


def _assert_lists_every_field(text: str) -> None:
    for name in QUESTION["properties"]:
        assert f"- {name}" in text
    assert "required" in text
    assert "optional" in text
    assert "at most 20 characters" in text
    assert "at least 1" in text
    assert "one of: single, double" in text
    assert "record_form_answer" in text


@pytest.mark.parametrize("era", ERAS)
async def test_a_client_that_shows_nothing_gets_the_fields_in_text_and_records_the_chat_answer(
    base_url: str, era: str
) -> None:
    async with _client(base_url, era) as mcp:
        asked = await mcp.call_tool("ask_question", {"question": QUESTION, "title": "Your stay"})
        form_id = structured(asked)["formId"]
        pending = await mcp.call_tool("get_form_response", {"formId": form_id})
        invented = await mcp.call_tool("submit_form", {"formId": form_id, "data": ANSWER})
        wrong = await mcp.call_tool("record_form_answer", {"formId": form_id, "data": {"city": "Oslo"}})
        recorded = await mcp.call_tool("record_form_answer", {"formId": form_id, "data": ANSWER})
        answered = await mcp.call_tool("get_form_response", {"formId": form_id})
        record_schema = await output_schema(mcp, "record_form_answer")
    text = narration_of(asked)
    assert "cannot show forms" in text
    assert "Showing a form" not in text
    _assert_lists_every_field(text)
    assert ANSWER_KEY_META not in (asked.meta or {})  # nothing a widget could answer with reaches this client
    # Pending, but never a dead end: the model is told to ask in chat and record.
    assert structured(pending)["type"] == "dgui_pending"
    assert "record_form_answer" in narration_of(pending)
    assert invented.is_error
    assert error_of(invented)["code"] == "app_only"
    assert wrong.is_error
    assert error_of(wrong)["code"] == "invalid_answer"
    assert "nights" in error_of(wrong)["fields"]
    assert not recorded.is_error
    assert structured(recorded) == {**structured(recorded), "type": "dgui_response", "data": ANSWER, "complete": True}
    assert_conforms(recorded, record_schema)
    assert structured(answered)["data"] == ANSWER


async def test_a_modern_client_that_shows_nothing_is_not_offered_app_only_tools(base_url: str) -> None:
    async with _client(base_url, "2026-07-28") as bare, _client(base_url, "2026-07-28", apps=True) as apps:
        bare_tools = (await bare.list_tools()).tools
        apps_tools = (await apps.list_tools()).tools
    only_for_apps = {t.name for t in apps_tools if app_only(t.model_dump(by_alias=True))}
    assert "submit_form" in only_for_apps
    assert {t.name for t in bare_tools} == {t.name for t in apps_tools} - only_for_apps
    assert "record_form_answer" in {t.name for t in bare_tools}


@pytest.mark.parametrize("era", ERAS)
async def test_a_client_that_elicits_gets_a_flat_form_natively_and_any_other_in_text(base_url: str, era: str) -> None:
    async with _client(base_url, era, elicits=True) as mcp:
        native = await mcp.call_tool("ask_question", {"question": FLAT})
        nested = await mcp.call_tool("ask_question", {"question": QUESTION})
    assert structured(native)["type"] == "dgui_response"
    assert structured(native)["data"] == {"city": "Bergen"}
    assert structured(nested)["type"] == "dgui_form"
    assert "cannot show forms" in narration_of(nested)
    _assert_lists_every_field(narration_of(nested))


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("host", ["mcp-apps", *CHATGPT_SIGNALS])
async def test_a_client_that_shows_widgets_gets_the_form_and_only_its_widget_can_answer(
    base_url: str, era: str, host: str
) -> None:
    meta = {} if host == "mcp-apps" else {host: "ChatGPT/1.2026 (Mac OS X)" if host.endswith("Agent") else "en-US"}
    async with _client(base_url, era, apps=host == "mcp-apps", elicits=True) as mcp:
        asked = await mcp.call_tool("ask_question", {"question": FLAT, "title": "Where?"}, meta=meta)
        other = await mcp.call_tool("ask_question", {"question": FLAT}, meta=meta)
        form_id, key = structured(asked)["formId"], (asked.meta or {})[ANSWER_KEY_META]
        by_model = await mcp.call_tool("record_form_answer", {"formId": form_id, "data": {"city": "X"}}, meta=meta)
        no_key = await mcp.call_tool("submit_form", {"formId": form_id, "data": {"city": "X"}}, meta=meta)
        other_key = (other.meta or {})[ANSWER_KEY_META]
        forged = [
            await mcp.call_tool("submit_form", {"formId": form_id, "data": {"city": "X"}, "answerKey": k}, meta=meta)
            for k in (other_key, key[:-1], key.upper() if key.upper() != key else key.lower(), "")
        ]
        pending = await mcp.call_tool("get_form_response", {"formId": form_id}, meta=meta)
        by_widget = await mcp.call_tool(
            "submit_form", {"formId": form_id, "data": {"city": "Oslo"}, "answerKey": key}, meta=meta
        )
    assert "Showing a form: Where?" in narration_of(asked)
    assert structured(asked)["type"] == "dgui_form"  # shown, not elicited, though the client elicits
    assert key not in narration_of(asked)  # the key rides in _meta only, which the model is not handed
    assert by_model.is_error
    assert error_of(by_model)["code"] == "answered_in_form"
    assert no_key.is_error
    assert error_of(no_key)["code"] == "answer_key_invalid"
    assert "answer key" in narration_of(no_key)
    for refused in forged:
        assert refused.is_error
        assert error_of(refused)["code"] == "answer_key_invalid"
    assert structured(pending)["type"] == "dgui_pending"  # nothing forged landed
    assert not by_widget.is_error
    assert structured(by_widget)["data"] == {"city": "Oslo"}


async def test_an_answer_key_longer_than_any_issued_is_refused_before_anything_is_read(base_url: str) -> None:
    async with _client(base_url, "2026-07-28", apps=True) as mcp:
        asked = await mcp.call_tool("ask_question", {"question": FLAT})
        form_id = structured(asked)["formId"]
        long = await mcp.call_tool("submit_form", {"formId": form_id, "data": {"city": "X"}, "answerKey": "k" * 65})
    assert long.is_error
    assert error_of(long)["code"] == "invalid_arguments"
