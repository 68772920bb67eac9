"""A DGUI form as a host shows it, in any client of the matrix: asked, answered wrongly (refused with the reason,
as an error result with its sentence), then rightly, and read back: from its widget, with the answer key the form
came with, where the client may show widgets; else, the client being known to show none, in chat, the model
recording what the user said with record_form_answer. In a host that shows the server's forms as its own
(elicitation) and no widget, the form is asked there and answered, declined, cancelled or refused; a host that
shows widgets gets the widget's form even though it could elicit, and only the widget's key answers it."""

from __future__ import annotations

from client_plan import output_schema, schema_errors
from client_session import ClientSession
from form_keys import answer_key, keyed
from widget_mcp.transport.resumption import FIRST_RETRY_MS

QUESTION = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "title": "City", "maxLength": 50},
        "nights": {"type": "integer", "title": "Nights", "minimum": 1, "maximum": 30},
    },
    "required": ["city", "nights"],
}
STAY = {"city": "Lisbon", "nights": 3}


def play(client: ClientSession) -> None:
    asked = client.succeeds("ask_question", {"question": QUESTION, "title": "Your stay"})
    form = asked.structured["formId"]
    assert (asked.structured["type"], asked.structured["schema"]) == ("dgui_form", QUESTION), asked.structured
    key = answer_key(asked.result)
    # A client known to show no widget is told so, with every field, and gets no key; one that may show it, a key.
    assert (key is None) == client.hides_app_tools, f"{asked.where}: answer key {key!r}"
    if client.hides_app_tools:
        assert "cannot show forms" in asked.narration, asked.narration
        assert "- nights" in asked.narration, asked.narration
    tool = "record_form_answer" if client.hides_app_tools else "submit_form"

    pending = client.succeeds("get_form_response", {"formId": form})
    assert pending.structured["type"] == "dgui_pending", pending.structured

    wrong = client.fails(tool, keyed({"formId": form, "data": {"city": "Lisbon", "nights": 0}}), "invalid_answer")
    assert "nights" in wrong.text.lower() or "Nights" in wrong.text, wrong.text

    answered = client.succeeds(tool, keyed({"formId": form, "data": {"city": "Lisbon", "nights": 3}}))
    assert (answered.structured["type"], answered.structured["complete"]) == ("dgui_response", True)

    read = client.succeeds("get_form_response", {"formId": form})
    assert (read.structured["type"], read.structured["data"]) == ("dgui_response", {"city": "Lisbon", "nights": 3})

    client.fails("ask_question", {"question": "not a form"}, "invalid_schema")


def play_without_widgets(host: ClientSession) -> None:
    ask = {"question": QUESTION, "title": "Your stay"}
    answered = host.succeeds("ask_question", ask, answer={"action": "accept", "content": STAY})
    # The host was asked the form itself, once, before anything was stored.
    asked = [(a["requestedSchema"], "Your stay" in a["message"]) for a in answered.asked]
    assert asked == [(QUESTION, True)], f"{answered.where}: the host was asked {answered.asked}"
    # The structured result is the answer, as submit_form would have answered it from the widget (and in _meta).
    response = answered.structured
    form = response["formId"]
    assert (response["type"], response["data"], response["complete"]) == ("dgui_response", STAY, True), response
    assert answered.meta["dgui_response"] == response, answered.meta
    assert schema_errors(output_schema("submit_form"), response) == [], response
    assert "Lisbon" in answered.narration, answered.text
    read = host.succeeds("get_form_response", {"formId": form})
    assert (read.structured["type"], read.structured["data"]) == ("dgui_response", STAY), read.structured

    for action, said in (("decline", "declined"), ("cancel", "cancelled")):
        refused = host.succeeds("ask_question", ask, answer={"action": action})
        assert len(refused.asked) == 1, f"{refused.where}: the host was asked {refused.asked}"
        assert (refused.structured["type"], refused.structured["action"]) == ("dgui_pending", action), (
            refused.structured
        )
        assert "dgui_response" not in refused.meta, refused.meta
        assert said in refused.narration, refused.text
        pending = host.succeeds("get_form_response", {"formId": refused.structured["formId"]})
        assert pending.structured["type"] == "dgui_pending", pending.structured

    # An answer the server's check refuses is refused as the widget's would be, naming the field.
    wrong = {"action": "accept", "content": {**STAY, "nights": 0}}
    refused_answer = host.fails("ask_question", ask, "invalid_answer", answer=wrong)
    assert list(refused_answer.error.get("fields", {})) == ["nights"], refused_answer.error


def play_answered_late(host: ClientSession) -> None:
    """A person who takes longer than the `retry` the server first gave: the client's first resumption finds no
    answer and is told to come back; a later one gets the result."""
    late = {"action": "accept", "content": STAY, "afterResumptions": 1}
    answered = host.succeeds("ask_question", {"question": QUESTION, "title": "Your stay"}, answer=late)
    assert answered.resumed >= 2, f"{answered.where}: the client resumed the stream {answered.resumed} time(s)"
    assert answered.meta["dgui_response"]["data"] == STAY, answered.meta


def play_unanswered(host: ClientSession) -> None:
    """A host that fails to answer the form (its client sends the server an error instead): the call fails with the
    server's sentence, and the client, which has the call's response, resumes the stream no more; were it to, the
    server must end it rather than send the response again (a client polls every `retry` for as long as it gets
    event streams). The wait for a resumption is four times the `retry` the server gave with the response (its first
    one: the client resumed once), and a second."""
    failed = host.call("ask_question", {"question": QUESTION, "title": "Your stay"}, {"error": "The host closed"})
    thrown = failed.thrown
    assert thrown is not None, f"{failed.where}: the host failed to answer, yet the call succeeded: {failed.result}"
    assert "The host closed" in thrown["message"], f"{failed.where}: the error does not pass on the host's: {thrown}"
    statuses = host.resumed_after_settling(4 * FIRST_RETRY_MS / 1000 + 1)
    assert 200 not in statuses, (
        f"{failed.where}: with the call's error in hand, the client resumed its stream again and the server answered"
        f" {statuses}: it will keep polling every retry until it closes"
    )


def play_with_widgets(host: ClientSession) -> None:
    shown = host.succeeds("ask_question", {"question": QUESTION, "title": "Your stay"})
    assert shown.asked == [], f"{shown.where}: a host that shows widgets was asked {shown.asked}"
    assert shown.structured["type"] == "dgui_form", shown.structured
    assert "dgui_response" not in shown.meta, shown.meta
    assert shown.narration.startswith("Showing a form: Your stay."), shown.narration
    form = shown.structured["formId"]
    pending = host.succeeds("get_form_response", {"formId": form})
    assert pending.structured["type"] == "dgui_pending", pending.structured
    # The model, which has no key, cannot answer for the user; the widget, with the one the form came with, can.
    host.fails("submit_form", {"formId": form, "data": STAY}, "answer_key_invalid")
    host.fails("record_form_answer", {"formId": form, "data": STAY}, "answered_in_form")
    answered = host.succeeds("submit_form", {"formId": form, "data": STAY, "answerKey": answer_key(shown.result)})
    assert (answered.structured["type"], answered.structured["data"]) == ("dgui_response", STAY), answered.structured
