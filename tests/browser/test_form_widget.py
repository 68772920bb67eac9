"""The DGUI form widget in the playground: the seed's flight form, validation on both sides, the answer reaching
the conversation and the server, several steps, and model text that stays text."""

from __future__ import annotations

from typing import Any

import pytest
from browser_support import CHATGPT, DevServer, click_in_widget, widget
from form_keys import keep_key, keyed
from playwright.sync_api import Dialog, FrameLocator, Page, expect
from seed_forms import FLIGHT as FLIGHT_SCHEMA
from seed_forms import FLIGHT_UI, TRAVELLERS_STEP

# Seed 001's example form, as a model would send it to ask_question.
FLIGHT = {"question": FLIGHT_SCHEMA, "uiSchema": FLIGHT_UI, "title": "Book a Flight to Japan"}
XSS = "<img src=x onerror=window.__pwned=1>"


def open_form(page: Page, server: DevServer, args: dict[str, Any], **extra: str) -> FrameLocator:
    page.goto(server.playground("ask_question", args, **extra))
    frame = widget(page)
    expect(frame.locator(".wm-form")).to_have_attribute("data-state", "ready")
    return frame


def form_id(frame: FrameLocator) -> str:
    value = frame.locator(".wm-form").get_attribute("data-form-id")
    assert value
    return value


def field_error(frame: FrameLocator, field: str) -> Any:
    return frame.locator(f".form-group:has(#root_{field}) .error-detail")


# The default MCP Apps host (no identity), and ChatGPT with both bridges or window.openai alone.
HOSTS = [{"host": "mcp-apps"}, {"host": "chatgpt"}, {"host": "chatgpt", "bridge": "openai"}]


@pytest.mark.parametrize("host", HOSTS, ids=lambda h: "+".join(h.values()))
def test_the_seed_flight_form_refuses_a_missing_date_then_sends_the_answers_to_the_chat_and_the_server(
    page: Page, dev_server: DevServer, host: dict[str, str]
) -> None:
    frame = open_form(page, dev_server, FLIGHT, **host)
    expect(frame.locator('[data-testid="form-title"]')).to_have_text("Book a Flight to Japan")
    expect(frame.locator("#root_destinationCity")).to_have_value("Tokyo")
    expect(frame.locator("#root_departureDate")).to_have_attribute("type", "date")
    submit = frame.locator("button[type=submit]")

    click_in_widget(page, submit)
    expect(field_error(frame, "departureDate")).to_contain_text("This field is required.")
    expect(page.locator('[data-testid="chat-bubble"]')).to_have_count(0)

    frame.locator("#root_departureDate").fill("2025-12-25")
    frame.locator("#root_returnDate").fill("2026-01-10")
    click_in_widget(page, submit)
    expect(frame.locator('[data-testid="form-sent"]')).to_contain_text("Thanks — sent")
    bubble = page.locator('[data-testid="chat-bubble"]')
    expect(bubble).to_have_count(1)
    expect(bubble).to_contain_text("Book a Flight to Japan")
    expect(bubble).to_contain_text("Departure Date: 2025-12-25")
    expect(bubble).to_contain_text("Return Date: 2026-01-10")

    as_caller = CHATGPT if host["host"] == "chatgpt" else None
    stored = dev_server.call_tool("get_form_response", {"formId": form_id(frame)}, as_caller)
    assert stored["isError"] is False
    assert stored["structuredContent"]["type"] == "dgui_response"
    assert stored["structuredContent"]["data"] == {
        "destinationCity": "Tokyo",
        "departureDate": "2025-12-25",
        "returnDate": "2026-01-10",
    }


def test_a_field_error_found_only_by_the_server_is_shown_under_its_field(page: Page, dev_server: DevServer) -> None:
    asked = keep_key(dev_server.call_tool("ask_question", FLIGHT))
    fid = asked["structuredContent"]["formId"]
    # Answered first (from the same form, another tab): the server now refuses different answers with
    # already_answered.
    first = {"destinationCity": "Osaka", "departureDate": "2025-11-01"}
    assert dev_server.call_tool("submit_form", keyed({"formId": fid, "data": first}))["isError"] is False
    page.goto(dev_server.preview("form", asked))
    frame = widget(page)
    expect(frame.locator(".wm-form")).to_have_attribute("data-state", "ready")
    assert form_id(frame) == fid
    frame.locator("#root_departureDate").fill("2025-12-25")
    click_in_widget(page, frame.locator("button[type=submit]"))
    message = frame.locator('[data-testid="form-message"]')
    expect(message).to_have_attribute("data-code", "already_answered")
    expect(frame.locator(".wm-form")).to_have_attribute("data-state", "error")
    expect(page.locator('[data-testid="chat-bubble"]')).to_have_count(0)


def test_server_side_field_errors_appear_inline_next_to_the_field(page: Page, dev_server: DevServer) -> None:
    # "idn-email" is a format the widget's validator does not know and the server checks: only the server
    # can refuse this value, and its per-field message comes back in `fields`.
    schema = {
        "type": "object",
        "properties": {"email": {"type": "string", "title": "Email", "format": "idn-email"}},
        "required": ["email"],
    }
    frame = open_form(page, dev_server, {"question": schema, "title": "Contact"})
    frame.locator("#root_email").fill("nobody")
    click_in_widget(page, frame.locator("button[type=submit]"))
    expect(frame.locator('[data-testid="form-message"]')).to_have_attribute("data-code", "invalid_answer")
    expect(field_error(frame, "email")).to_contain_text("idn-email")
    expect(page.locator('[data-testid="chat-bubble"]')).to_have_count(0)
    frame.locator("#root_email").fill("nobody@example.jp")
    click_in_widget(page, frame.locator("button[type=submit]"))
    expect(frame.locator('[data-testid="form-sent"]')).to_be_visible()


def test_every_ui_schema_widget_renders_and_its_value_reaches_the_server(page: Page, dev_server: DevServer) -> None:
    schema = {
        "type": "object",
        "properties": {
            "notes": {"type": "string", "title": "Notes"},
            "seat": {"type": "string", "title": "Seat", "enum": ["window", "aisle"]},
            "cabin": {"type": "string", "title": "Cabin", "enum": ["economy", "business"]},
            "meals": {
                "type": "array",
                "title": "Meals",
                "items": {"type": "string", "enum": ["vegan", "halal", "kosher"]},
                "uniqueItems": True,
            },
            "when": {"type": "string", "title": "When", "format": "date"},
        },
        "required": ["seat"],
    }
    ui = {
        "notes": {"ui:widget": "textarea"},
        "seat": {"ui:widget": "radio"},
        "cabin": {"ui:widget": "select"},
        "meals": {"ui:widget": "checkboxes"},
        "when": {"ui:widget": "date"},
    }
    frame = open_form(page, dev_server, {"question": schema, "uiSchema": ui, "title": "Preferences"})
    expect(frame.locator("textarea#root_notes")).to_have_count(1)
    expect(frame.locator("select#root_cabin")).to_have_count(1)
    expect(frame.locator("input[type=radio][name=root_seat]")).to_have_count(2)
    expect(frame.locator("input[type=checkbox][id^=root_meals]")).to_have_count(3)
    frame.locator("textarea#root_notes").fill("Near the front, please")
    # The form's inputs are controlled: a click's new state is drawn on the next render, so each is clicked, then
    # awaited (Locator.check asserts at once, and lost that race on a loaded machine).
    for choice in (
        frame.locator("input[type=radio][name=root_seat]").nth(1),
        frame.locator("input[type=checkbox][id^=root_meals]").nth(0),
        frame.locator("input[type=checkbox][id^=root_meals]").nth(2),
    ):
        choice.click()
        expect(choice).to_be_checked()
    frame.locator("select#root_cabin").select_option("business")
    frame.locator("#root_when").fill("2026-03-01")
    click_in_widget(page, frame.locator("button[type=submit]"))
    expect(frame.locator('[data-testid="form-sent"]')).to_be_visible()
    stored = dev_server.call_tool("get_form_response", {"formId": form_id(frame)})["structuredContent"]
    assert stored["data"] == {
        "notes": "Near the front, please",
        "seat": "aisle",
        "cabin": "business",
        "meals": ["vegan", "kosher"],
        "when": "2026-03-01",
    }


def test_a_two_step_form_shows_the_next_step_and_sends_one_message_at_the_end(
    page: Page, dev_server: DevServer
) -> None:
    frame = open_form(page, dev_server, {**FLIGHT, "metadata": {"next": TRAVELLERS_STEP}})
    expect(frame.locator('[data-testid="form-step"]')).to_have_text("Step 1 of 2")
    frame.locator("#root_departureDate").fill("2025-12-25")
    click_in_widget(page, frame.locator("button[type=submit]"))
    expect(frame.locator('[data-testid="form-title"]')).to_have_text("Travellers")
    expect(frame.locator(".wm-form")).to_have_attribute("data-step", "1")
    expect(page.locator('[data-testid="chat-bubble"]')).to_have_count(0)
    frame.locator("#root_adults").fill("2")
    click_in_widget(page, frame.locator("button[type=submit]"))
    expect(frame.locator('[data-testid="form-sent"]')).to_be_visible()
    bubble = page.locator('[data-testid="chat-bubble"]')
    expect(bubble).to_have_count(1)
    expect(bubble).to_contain_text("Adults: 2")
    expect(bubble).to_contain_text("Departure Date: 2025-12-25")
    stored = dev_server.call_tool("get_form_response", {"formId": form_id(frame)})["structuredContent"]
    assert stored["data"] == {"destinationCity": "Tokyo", "departureDate": "2025-12-25", "adults": 2}


def test_markup_in_the_title_description_and_field_titles_is_shown_as_text_and_runs_nothing(
    page: Page, dev_server: DevServer
) -> None:
    dialogs: list[str] = []

    def record(dialog: Dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", record)
    schema = {
        "type": "object",
        "title": XSS,
        "description": XSS,
        "properties": {
            "name": {"type": "string", "title": XSS, "description": XSS},
            "pick": {"type": "string", "title": "Pick", "enum": ["a", "b"]},
        },
    }
    ui = {
        "ui:enableMarkdownInDescription": True,
        "name": {"ui:help": XSS, "ui:placeholder": XSS, "ui:enableMarkdownInDescription": True},
        "pick": {"ui:enumNames": [XSS, XSS]},
    }
    frame = open_form(page, dev_server, {"question": schema, "uiSchema": ui, "title": XSS, "description": XSS})
    expect(frame.locator('[data-testid="form-title"]')).to_have_text(XSS)
    expect(frame.locator('[data-testid="form-description"]')).to_have_text(XSS)
    expect(frame.locator("label[for=root_name]")).to_contain_text(XSS)
    expect(frame.locator("#root_name")).to_have_attribute("placeholder", XSS)
    expect(frame.locator("#root img, #root script, #root svg, #root iframe")).to_have_count(0)
    frame.locator("#root_name").fill(XSS)
    click_in_widget(page, frame.locator("button[type=submit]"))
    expect(frame.locator('[data-testid="form-sent"]')).to_contain_text(XSS)
    expect(page.locator('[data-testid="chat-bubble"]')).to_contain_text(XSS)
    expect(frame.locator("#root img, #root script, #root svg, #root iframe")).to_have_count(0)
    assert frame.locator("html").evaluate("() => window.__pwned") is None
    assert page.evaluate("() => window.__pwned") is None
    assert not dialogs


def test_an_invalid_schema_shows_the_servers_error_instead_of_a_form(page: Page, dev_server: DevServer) -> None:
    page.goto(dev_server.playground("ask_question", {"question": {"type": "object"}}))
    message = widget(page).locator('[data-testid="form-message"]')
    expect(message).to_contain_text("properties")
    expect(widget(page).locator("button[type=submit]")).to_have_count(0)
