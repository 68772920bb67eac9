"""The form widget for keyboard and screen-reader users: every field and group named by its label, an error tied to
its field and the field marked invalid, the focus taken to the first field in error (whichever side found it), to
the next step's title, and to the confirmation; and a two-step form filled and sent with the keyboard alone."""

from __future__ import annotations

import re
from typing import Any

from browser_support import DevServer, click_in_widget, press, widget, widget_frame
from playwright.sync_api import Frame, FrameLocator, Page, expect
from seed_forms import FLIGHT as FLIGHT_SCHEMA
from seed_forms import FLIGHT_UI, TRAVELLERS_STEP

FLIGHT = {"question": FLIGHT_SCHEMA, "uiSchema": FLIGHT_UI, "title": "Book a Flight to Japan"}
CHOICES = {
    "type": "object",
    "required": ["name", "seat"],
    "properties": {
        "name": {"type": "string", "title": "Name"},
        "seat": {"type": "string", "title": "Seat", "enum": ["window", "aisle"]},
        "meals": {
            "type": "array",
            "title": "Meals",
            "items": {"type": "string", "enum": ["vegan", "halal"]},
            "uniqueItems": True,
        },
    },
}
CHOICES_UI = {"seat": {"ui:widget": "radio"}, "meals": {"ui:widget": "checkboxes"}}


def open_form(page: Page, server: DevServer, args: dict[str, Any]) -> FrameLocator:
    page.goto(server.playground("ask_question", args))
    frame = widget(page)
    expect(frame.locator(".wm-form")).to_have_attribute("data-state", "ready")
    return frame


def focused_id(frame: Frame) -> str | None:
    value = frame.evaluate("() => document.activeElement?.id || document.activeElement?.dataset?.testid || null")
    return value if isinstance(value, str) else None


def test_groups_of_choices_are_named_by_their_labels(page: Page, dev_server: DevServer) -> None:
    frame = open_form(page, dev_server, {"question": CHOICES, "uiSchema": CHOICES_UI})
    expect(frame.get_by_role("textbox", name="Name")).to_have_attribute("id", "root_name")
    expect(frame.get_by_role("radiogroup", name="Seat")).to_have_attribute("id", "root_seat")
    expect(frame.get_by_role("group", name="Meals")).to_have_attribute("id", "root_meals")
    expect(frame.get_by_role("radio", name="aisle")).to_have_count(1)
    expect(frame.get_by_role("checkbox", name="halal")).to_have_count(1)


def test_a_missing_answer_takes_the_focus_to_its_field_which_is_invalid_and_described_by_the_message(
    page: Page, dev_server: DevServer
) -> None:
    frame = open_form(page, dev_server, FLIGHT)
    click_in_widget(page, frame.locator("button[type=submit]"))
    date = frame.locator("#root_departureDate")
    expect(date).to_be_focused()
    expect(date).to_have_attribute("aria-invalid", "true")
    expect(date).to_have_accessible_description("This field is required.")
    expect(frame.locator("#root_destinationCity")).not_to_have_attribute("aria-invalid", "true")
    date.fill("2025-12-25")
    click_in_widget(page, frame.locator("button[type=submit]"))
    expect(frame.locator('[data-testid="form-sent"]')).to_be_focused()  # the confirmation, read out where it is


def test_a_field_only_the_server_refuses_takes_the_focus_with_the_servers_message(
    page: Page, dev_server: DevServer
) -> None:
    schema = {"type": "object", "properties": {"email": {"type": "string", "title": "Email", "format": "idn-email"}}}
    frame = open_form(page, dev_server, {"question": schema, "title": "Contact"})
    frame.locator("#root_email").fill("nobody")
    click_in_widget(page, frame.locator("button[type=submit]"))
    expect(frame.locator('[data-testid="form-message"]')).to_have_attribute("role", "alert")
    email = frame.locator("#root_email")
    expect(email).to_be_focused()
    expect(email).to_have_attribute("aria-invalid", "true")
    expect(email).to_have_accessible_description(re.compile("idn-email"))


def test_a_two_step_form_is_filled_and_sent_with_the_keyboard_alone(page: Page, dev_server: DevServer) -> None:
    args = {"question": CHOICES, "uiSchema": CHOICES_UI, "title": "Seat", "metadata": {"next": TRAVELLERS_STEP}}
    view = open_form(page, dev_server, args)
    frame = widget_frame(page)
    for _ in range(30):  # from the top of the playground into the widget's first field
        press(page, "Tab")
        if focused_id(frame) == "root_name":
            break
    expect(view.locator("#root_name")).to_be_focused()
    page.keyboard.type("Ada")
    page.keyboard.press("Tab")
    expect(view.locator("#root_seat-0")).to_be_focused()
    page.keyboard.press("ArrowDown")  # the radio group: arrows choose
    expect(view.locator("#root_seat-1")).to_be_focused()
    page.keyboard.press("Tab")
    page.keyboard.press("Space")  # the first meal
    expect(view.locator("#root_meals-0")).to_be_focused()
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    expect(view.locator("button[type=submit]")).to_be_focused()
    page.keyboard.press("Enter")
    expect(view.locator('[data-testid="form-title"]')).to_have_text("Travellers")
    expect(view.locator('[data-testid="form-title"]')).to_be_focused()
    page.keyboard.press("Tab")
    expect(view.locator("#root_adults")).to_be_focused()
    page.keyboard.type("2")
    page.keyboard.press("Enter")  # Enter in a text field sends the form
    expect(view.locator('[data-testid="form-sent"]')).to_be_focused()
    bubble = page.locator('[data-testid="chat-bubble"]')
    expect(bubble).to_contain_text("Name: Ada")
    expect(bubble).to_contain_text("Seat: aisle")
    expect(bubble).to_contain_text("Adults: 2")
    form_id = view.locator(".wm-form").get_attribute("data-form-id")
    stored = dev_server.call_tool("get_form_response", {"formId": form_id})["structuredContent"]
    assert stored["data"] == {"name": "Ada", "seat": "aisle", "meals": ["vegan"], "adults": 2}
