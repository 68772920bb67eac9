"""Answers are checked on the server against the stored schema: required fields, types, formats, enums, ranges."""

from __future__ import annotations

from typing import Any

import pytest
from seed_forms import EXAMPLES, FLIGHT
from widget_mcp.apps.forms.domain import AlreadyAnswered, FormSession, InvalidAnswer, check_answers, field_errors


def test_a_complete_flight_answer_is_accepted_unchanged() -> None:
    data = {"destinationCity": "Tokyo", "departureDate": "2025-12-25", "returnDate": "2026-01-10"}
    assert check_answers(FLIGHT, data) == data


@pytest.mark.parametrize(
    ("schema", "data", "errors"),
    [
        (FLIGHT, {"destinationCity": "Tokyo"}, {"departureDate": "This field is required."}),
        (FLIGHT, {}, {"departureDate": "This field is required.", "destinationCity": "This field is required."}),
        (
            FLIGHT,
            {"destinationCity": "Tokyo", "departureDate": "next tuesday"},
            {"departureDate": "Enter a valid date (YYYY-MM-DD)."},
        ),
        (
            FLIGHT,
            {"destinationCity": 7, "departureDate": "2025-12-25"},
            {"destinationCity": "This must be text."},
        ),
        (EXAMPLES["used_car"], {"maxPrice": 20000}, {"maxPrice": "This must be at most 15000."}),
        (
            EXAMPLES["getaway"],
            {"destination": "Rome", "accommodation": "castle"},
            {"accommodation": "Choose one of: hotel, apartment, camping."},
        ),
        (
            EXAMPLES["address"],
            {"street": "1 Main", "city": "X", "zip": "12"},
            {"zip": "'12' does not match '^[0-9]{5}$'."},
        ),
        (
            EXAMPLES["meeting"],
            {"title": "Q3", "date": "2026-01-01T10:00:00Z", "attendees": ["nope"]},
            {"attendees.0": "Enter a valid email address."},
        ),
    ],
)
def test_each_problem_is_reported_under_its_field(
    schema: dict[str, Any], data: dict[str, Any], errors: dict[str, str]
) -> None:
    assert field_errors(schema, data) == errors
    with pytest.raises(InvalidAnswer) as caught:
        check_answers(schema, data)
    assert caught.value.fields == errors
    assert caught.value.payload == data


def test_a_second_identical_submit_is_a_repeat_and_a_different_one_is_refused() -> None:
    session = FormSession.ask("f1", FLIGHT)
    answer = {"destinationCity": "Tokyo", "departureDate": "2025-12-25"}

    assert session.submit(answer) == (0, False)
    assert session.submit(dict(answer), step=0) == (0, True)
    with pytest.raises(AlreadyAnswered, match="different data"):
        session.submit({**answer, "destinationCity": "Osaka"}, step=0)
    assert session.answers() == answer


def test_a_multi_step_form_keeps_every_steps_answers_in_order() -> None:
    passengers = {"type": "object", "properties": {"adults": {"type": "integer", "minimum": 1}}, "required": ["adults"]}
    session = FormSession.ask(
        "f2",
        FLIGHT,
        title="Flight",
        metadata={"agent_context": "booking", "next": {"title": "Who flies", "schema": passengers}},
    )

    assert (len(session.steps), session.current, session.metadata) == (2, 0, {"agent_context": "booking"})
    with pytest.raises(AlreadyAnswered, match="at step 1 of 2"):
        session.submit({"adults": 2}, step=1)
    session.submit({"destinationCity": "Tokyo", "departureDate": "2025-12-25"})
    assert (session.current, session.complete) == (1, False)
    with pytest.raises(InvalidAnswer):
        session.submit({"adults": 0})
    session.submit({"adults": 2})
    assert session.complete
    assert session.answers() == {"destinationCity": "Tokyo", "departureDate": "2025-12-25", "adults": 2}
    assert FormSession.from_record(session.to_record()) == session
