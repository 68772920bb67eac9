"""A form shown again (show_form) without its first result, through the official client over HTTP in both eras:
where the client shows widgets its widget gets a fresh answer key (in `_meta` only) and any earlier key answers it no
more; where it shows nothing, the fields in text, recorded from chat; an answered form reads back its answers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from form_keys import MCP_APPS
from mcp import Client
from servers import serve
from tool_results import assert_conforms, error_of, narration_of, output_schema, structured
from widget_mcp.apps.forms.answer_keys import ANSWER_KEY_META
from widget_mcp.apps.forms.handlers import SHOW_TOOL
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.wiring import build_app, build_core

ERAS = ["2026-07-28", "legacy"]
CITY = {"type": "object", "properties": {"city": {"type": "string", "title": "City"}}, "required": ["city"]}
NIGHTS = {"type": "object", "properties": {"nights": {"type": "integer", "minimum": 1}}, "required": ["nights"]}
TWO_STEPS = {"question": CITY, "title": "Where?", "metadata": {"next": {"title": "How long?", "schema": NIGHTS}}}


@pytest.fixture
def mcp_url(settings: Settings) -> Iterator[str]:
    with serve(build_app(build_core(settings, concurrent=True, store=InMemoryDocumentStore()))) as url:
        yield f"{url}/mcp"


def _client(url: str, era: str, *, apps: bool) -> Client:
    return Client(url, mode=era, extensions=[MCP_APPS] if apps else [])  # type: ignore[arg-type]


@pytest.mark.parametrize("era", ERAS)
async def test_a_form_shown_again_to_a_widget_host_is_answered_with_the_new_key_and_never_the_old(
    mcp_url: str, era: str
) -> None:
    async with _client(mcp_url, era, apps=True) as mcp:
        asked = await mcp.call_tool("ask_question", TWO_STEPS)
        form_id, first_key = structured(asked)["formId"], (asked.meta or {})[ANSWER_KEY_META]
        step_one = await mcp.call_tool(
            "submit_form", {"formId": form_id, "data": {"city": "Oslo"}, "answerKey": first_key}
        )
        pending = await mcp.call_tool("get_form_response", {"formId": form_id})
        again = await mcp.call_tool(SHOW_TOOL, {"formId": form_id})
        new_key = (again.meta or {})[ANSWER_KEY_META]
        by_old_key = await mcp.call_tool(
            "submit_form", {"formId": form_id, "data": {"nights": 2}, "step": 1, "answerKey": first_key}
        )
        still_pending = await mcp.call_tool("get_form_response", {"formId": form_id})
        by_new_key = await mcp.call_tool(
            "submit_form", {"formId": form_id, "data": {"nights": 2}, "step": 1, "answerKey": new_key}
        )
        answered_again = await mcp.call_tool(SHOW_TOOL, {"formId": form_id})
        schema = await output_schema(mcp, SHOW_TOOL)
    assert not step_one.is_error
    assert SHOW_TOOL in narration_of(pending)  # the model is told how to show a form the user lost
    # The form comes back at the step the user reached, for its widget, with a key the model is not handed.
    assert structured(again)["type"] == "dgui_form"
    assert structured(again)["title"] == "How long?"
    assert structured(again)["metadata"]["step"] == 1
    assert new_key != first_key
    assert new_key not in narration_of(again)
    assert new_key not in str(structured(again))
    assert_conforms(again, schema)
    assert error_of(by_old_key)["code"] == "answer_key_invalid"
    assert structured(still_pending)["type"] == "dgui_pending"  # nothing the old key sent was stored
    assert not by_new_key.is_error
    assert structured(by_new_key)["complete"] is True
    # Once answered, showing it again reads the answers back and gives no widget a key.
    assert structured(answered_again)["type"] == "dgui_response"
    assert structured(answered_again)["data"] == {"city": "Oslo", "nights": 2}
    assert ANSWER_KEY_META not in (answered_again.meta or {})
    assert_conforms(answered_again, schema)


@pytest.mark.parametrize("era", ERAS)
async def test_a_form_shown_again_where_no_widget_shows_lists_its_fields_and_is_recorded_from_chat(
    mcp_url: str, era: str
) -> None:
    async with _client(mcp_url, era, apps=True) as host:
        asked = await host.call_tool("ask_question", {"question": CITY, "title": "Where?"})
    form_id, key = structured(asked)["formId"], (asked.meta or {})[ANSWER_KEY_META]
    async with _client(mcp_url, era, apps=False) as bare:
        again = await bare.call_tool(SHOW_TOOL, {"formId": form_id})
        recorded = await bare.call_tool("record_form_answer", {"formId": form_id, "data": {"city": "Bergen"}})
    async with _client(mcp_url, era, apps=True) as host:
        by_widget = await host.call_tool("submit_form", {"formId": form_id, "data": {"city": "Oslo"}, "answerKey": key})
    assert structured(again)["type"] == "dgui_form"
    assert "cannot show forms" in narration_of(again)
    assert "- city" in narration_of(again)
    assert ANSWER_KEY_META not in (again.meta or {})
    assert structured(recorded)["data"] == {"city": "Bergen"}
    # The widget that showed it first still holds a key that opens it, but the answer given is final.
    assert error_of(by_widget)["code"] == "already_answered"


async def test_a_form_no_one_may_see_is_not_found_when_shown_again(mcp_url: str) -> None:
    async with _client(mcp_url, "2026-07-28", apps=True) as mcp:
        missing = await mcp.call_tool(SHOW_TOOL, {"formId": "no-such-form"})
    assert error_of(missing)["code"] == "form_not_found"
