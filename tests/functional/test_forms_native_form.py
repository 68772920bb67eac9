"""ask_question in every host, through the official client over HTTP: a host that can elicit and shows no widget
gets the form as its own (an input request), a host with MCP Apps the widget, any other the dgui_form and text."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client
from mcp.client import advertise
from mcp_types import ElicitRequestParams, ElicitResult
from servers import serve
from tool_results import assert_conforms, assert_text_carries_structure, error_of, narration_of, output_schema
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.wiring import build_app, build_core

APPS_EXTENSION = "io.modelcontextprotocol/ui"

FLAT = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "title": "City", "maxLength": 20},
        "nights": {"type": "integer", "title": "Nights", "minimum": 1, "maximum": 30},
        "breakfast": {"type": "boolean", "title": "Breakfast"},
        "room": {"type": "string", "enum": ["single", "double"]},
    },
    "required": ["city", "nights"],
}
NESTED = {
    "type": "object",
    "properties": {"guest": {"type": "object", "properties": {"name": {"type": "string"}}}},
}
ALICE = {"openai/subject": "alice"}


@pytest.fixture
def base_url(settings: Settings) -> Iterator[str]:
    with serve(build_app(build_core(settings, concurrent=True, store=InMemoryDocumentStore()))) as url:
        yield url


class Host:
    """A host's form: answers each elicitation with `content` (or `action`), and remembers what it was asked."""

    def __init__(self, content: dict[str, Any] | None = None, action: str = "accept") -> None:
        self.content = content
        self.action = action
        self.asked: list[ElicitRequestParams] = []

    async def elicit(self, context: Any, params: ElicitRequestParams) -> ElicitResult:
        self.asked.append(params)
        return ElicitResult(action=self.action, content=self.content)  # type: ignore[arg-type]


async def test_a_host_without_widgets_shows_a_flat_form_natively_and_the_answer_is_stored(base_url: str) -> None:
    host = Host({"city": "Oslo", "nights": 2, "breakfast": True})
    async with Client(f"{base_url}/mcp", mode="2026-07-28", elicitation_callback=host.elicit) as mcp:
        result = await mcp.call_tool("ask_question", {"question": FLAT, "title": "Your stay"}, meta=ALICE)
        response = result.structured_content
        assert response is not None
        stored = await mcp.call_tool("get_form_response", {"formId": response["formId"]}, meta=ALICE)
        schema = await output_schema(mcp, "ask_question")
    [asked] = host.asked
    assert asked.message == "Your stay"
    assert asked.requested_schema["properties"] == FLAT["properties"]
    assert asked.requested_schema["required"] == ["city", "nights"]
    # The structured result is the answer, not the question: a client that reads only structuredContent (or only
    # the text, which carries it) gives its model what the user said.
    assert response == {
        "type": "dgui_response",
        "formId": response["formId"],
        "data": {"city": "Oslo", "nights": 2, "breakfast": True},
        "step": 0,
        "steps": 1,
        "complete": True,
        "next": None,
    }
    assert_conforms(result, schema)
    assert_text_carries_structure(result)
    assert result.meta is not None
    assert result.meta["dgui_response"] == response
    assert "Oslo" in narration_of(result)
    assert stored.structured_content is not None
    assert stored.structured_content["type"] == "dgui_response"
    assert stored.structured_content["data"] == response["data"]


async def test_a_host_with_mcp_apps_gets_the_widget_and_is_not_asked(base_url: str) -> None:
    host = Host({"city": "Oslo", "nights": 2})
    apps = advertise(APPS_EXTENSION, {"mimeTypes": ["text/html;profile=mcp-app"]})
    async with Client(f"{base_url}/mcp", mode="2026-07-28", elicitation_callback=host.elicit, extensions=[apps]) as mcp:
        result = await mcp.call_tool("ask_question", {"question": FLAT}, meta=ALICE)
    assert host.asked == []
    assert result.structured_content is not None
    assert result.structured_content["type"] == "dgui_form"
    assert result.meta is not None
    assert "dgui_response" not in result.meta


@pytest.mark.parametrize(
    ("question", "mode"),
    [
        (NESTED, "2026-07-28"),
        ({"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]+$"}}}, "2026-07-28"),
    ],
    ids=["nested-object", "pattern"],
)
async def test_a_form_elicitation_cannot_carry_falls_back_to_the_dgui_form(
    base_url: str, question: dict[str, Any], mode: str
) -> None:
    host = Host({})
    async with Client(f"{base_url}/mcp", mode=mode, elicitation_callback=host.elicit) as mcp:  # type: ignore[arg-type]
        result = await mcp.call_tool("ask_question", {"question": question}, meta=ALICE)
    assert host.asked == []
    assert result.structured_content is not None
    assert result.structured_content["type"] == "dgui_form"
    # No widget either: the fields in text, to ask in chat (test_forms_by_capability.py records the answer).
    assert "This client cannot show forms" in narration_of(result)
    assert "Showing a form" not in narration_of(result)


@pytest.mark.parametrize(("action", "said"), [("decline", "declined"), ("cancel", "cancelled")])
async def test_a_declined_or_cancelled_native_form_is_pending_saying_what_the_user_did(
    base_url: str, action: str, said: str
) -> None:
    host = Host(action=action)
    async with Client(f"{base_url}/mcp", mode="2026-07-28", elicitation_callback=host.elicit) as mcp:
        result = await mcp.call_tool("ask_question", {"question": FLAT}, meta=ALICE)
        pending = result.structured_content
        assert pending is not None
        stored = await mcp.call_tool("get_form_response", {"formId": pending["formId"]}, meta=ALICE)
        schema = await output_schema(mcp, "ask_question")
    assert not result.is_error
    assert pending["type"] == "dgui_pending"
    assert pending["action"] == action
    assert pending["complete"] is False
    assert_conforms(result, schema)
    assert_text_carries_structure(result)
    assert said in narration_of(result)
    assert stored.structured_content is not None
    assert stored.structured_content["type"] == "dgui_pending"
    assert "action" not in stored.structured_content  # only the round the user refused says so


@pytest.mark.parametrize("era", ["2026-07-28", "legacy"])
async def test_a_declined_native_form_tells_the_model_to_ask_again_and_a_new_form_can_be_answered(
    base_url: str, era: str
) -> None:
    host = Host({"city": "Oslo", "nights": 2}, action="decline")
    async with Client(f"{base_url}/mcp", mode=era, elicitation_callback=host.elicit) as mcp:  # type: ignore[arg-type]
        declined = await mcp.call_tool("ask_question", {"question": FLAT}, meta=ALICE)
        form_id = (declined.structured_content or {})["formId"]
        later = await mcp.call_tool("get_form_response", {"formId": form_id}, meta=ALICE)
        invented = await mcp.call_tool("record_form_answer", {"formId": form_id, "data": host.content}, meta=ALICE)
        host.action = "accept"  # the user changed their mind: the model asks again
        again = await mcp.call_tool("ask_question", {"question": FLAT}, meta=ALICE)
    # Each result the model reads names the way on (a new form), never a dead end or an answer made up.
    for said in (narration_of(declined), narration_of(later), error_of(invented)["message"]):
        assert "ask_question" in said
        assert "do not record" in said
    assert (later.structured_content or {})["type"] == "dgui_pending"
    assert invented.is_error
    assert error_of(invented)["code"] == "answered_in_form"
    assert not again.is_error
    assert again.structured_content is not None
    assert again.structured_content["type"] == "dgui_response"
    assert again.structured_content["data"] == host.content
    assert again.structured_content["formId"] != form_id
    assert len(host.asked) == 2


async def test_a_native_answer_the_form_refuses_is_a_dgui_error(base_url: str) -> None:
    host = Host({"city": "x" * 50, "nights": 2})  # over the field's maxLength, which the host did not enforce
    async with Client(f"{base_url}/mcp", mode="2026-07-28", elicitation_callback=host.elicit) as mcp:
        result = await mcp.call_tool("ask_question", {"question": FLAT}, meta=ALICE)
    assert result.is_error
    assert error_of(result)["code"] == "invalid_answer"
    assert result.structured_content is not None
    assert result.structured_content["type"] == "dgui_error"


async def test_an_invalid_form_is_refused_before_the_user_is_asked(base_url: str) -> None:
    host = Host({})
    async with Client(f"{base_url}/mcp", mode="2026-07-28", elicitation_callback=host.elicit) as mcp:
        result = await mcp.call_tool("ask_question", {"question": {"type": "object", "properties": 3}}, meta=ALICE)
    assert host.asked == []
    assert result.is_error
    assert result.structured_content is not None
    assert result.structured_content["type"] == "dgui_error"
