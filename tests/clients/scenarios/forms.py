"""A DGUI form as a host shows it, in any client of the matrix: asked, answered wrongly (refused with the reason,
as an error result with its sentence), then rightly, and read back."""

from __future__ import annotations

from client_session import ClientSession

QUESTION = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "title": "City", "maxLength": 50},
        "nights": {"type": "integer", "title": "Nights", "minimum": 1, "maximum": 30},
    },
    "required": ["city", "nights"],
}


def play(client: ClientSession) -> None:
    asked = client.succeeds("ask_question", {"question": QUESTION, "title": "Your stay"})
    form = asked.structured["formId"]
    assert (asked.structured["type"], asked.structured["schema"]) == ("dgui_form", QUESTION), asked.structured

    pending = client.succeeds("get_form_response", {"formId": form})
    assert pending.structured["type"] == "dgui_pending", pending.structured

    wrong = client.fails("submit_form", {"formId": form, "data": {"city": "Lisbon", "nights": 0}}, "invalid_answer")
    assert "nights" in wrong.text.lower() or "Nights" in wrong.text, wrong.text

    answered = client.succeeds("submit_form", {"formId": form, "data": {"city": "Lisbon", "nights": 3}})
    assert (answered.structured["type"], answered.structured["complete"]) == ("dgui_response", True)

    read = client.succeeds("get_form_response", {"formId": form})
    assert (read.structured["type"], read.structured["data"]) == ("dgui_response", {"city": "Lisbon", "nights": 3})

    client.fails("ask_question", {"question": "not a form"}, "invalid_schema")
