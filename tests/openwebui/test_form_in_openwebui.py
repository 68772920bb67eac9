"""The form widget inside the real Open WebUI page, in Chromium, under Open WebUI's default iframe sandbox (no
allow-forms, no allow-same-origin): filled and sent by clicking, stored by the server for the user who answered,
and its follow-up message handed to Open WebUI, which asks the user before sending it as the next turn."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import Server, eventually
from openwebui_client import OpenWebUIClient
from openwebui_page import EMBED, open_chat, signed_in_page
from playwright.sync_api import Browser, Page, expect
from scripted_model import ScriptedModel

QUESTION = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "title": "City", "maxLength": 80},
        "nights": {"type": "integer", "title": "Nights", "minimum": 1, "maximum": 30},
    },
    "required": ["city"],
}


@pytest.fixture
def page(browser: Browser, admin: OpenWebUIClient) -> Iterator[Page]:
    with signed_in_page(browser, admin) as page:
        yield page


def _last_user_text(request: dict[str, Any]) -> str:
    users = [m for m in request.get("messages") or [] if m.get("role") == "user"]
    content = users[-1].get("content") if users else ""
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content or [])


def test_a_form_filled_and_sent_in_an_open_webui_chat_is_stored_and_its_answers_come_back_as_the_next_turn(
    page: Page, admin: OpenWebUIClient, server: Server, model: ScriptedModel
) -> None:
    chat = admin.chat(f"call ask_question {json.dumps({'question': QUESTION, 'title': 'Trip'})}")
    form_id = json.loads(chat.message["sources"][0]["metadata"][0]["full_result"])["structuredContent"]["formId"]
    form = open_chat(page, admin, chat.id)
    sandbox = page.locator(EMBED).first.get_attribute("sandbox") or ""
    assert "allow-forms" not in sandbox, sandbox
    assert "allow-same-origin" not in sandbox, sandbox

    form.get_by_label("City").fill("Lisbon")
    form.get_by_label("Nights").fill("3")
    form.get_by_role("button", name="Send").click()
    expect(form.get_by_test_id("form-sent")).to_contain_text("City: Lisbon; Nights: 3")

    stored = eventually(
        lambda: server.call_as(admin.account.id, "get_form_response", {"formId": form_id}),
        lambda answer: answer["structuredContent"]["type"] == "dgui_response",
    )
    assert stored["structuredContent"]["type"] == "dgui_response", stored["content"]
    assert stored["structuredContent"]["data"] == {"city": "Lisbon", "nights": 3}
    assert stored["structuredContent"]["complete"] is True

    # The widget's follow-up (MCP Apps ui/message) reaches Open WebUI as a prompt from the embed, which Open WebUI
    # sends only once the user confirms it.
    follow_up = f'I filled in the form "Trip" (form {form_id}): City: Lisbon; Nights: 3'
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("Confirm Prompt from Embed")
    expect(dialog).to_contain_text(follow_up)
    asked_before = len(model.chat_requests())
    dialog.get_by_role("button", name="Confirm").click()
    asked = eventually(lambda: model.chat_requests()[asked_before:], lambda new: bool(new))
    assert [_last_user_text(r) for r in asked][:1] == [follow_up]
    expect(page.get_by_text(follow_up).first).to_be_visible()
