"""The forms app's directory listing and review cases (toolkit/listing.py): what reviewers are promised, each
positive case's calls made by `make test` (tests/functional/test_review_cases.py)."""

from __future__ import annotations

from typing import Any

from widget_mcp import Listing, NegativeCase, ReviewCall, ReviewCase, ToolBook

FORM = "{{formId}}"
TRIP: dict[str, Any] = {
    "type": "object",
    "properties": {
        "departure": {"type": "string", "format": "date", "title": "Departure date"},
        "nights": {"type": "integer", "title": "Nights", "minimum": 1, "maximum": 30},
        "seat": {"type": "string", "title": "Seat", "enum": ["window", "aisle"]},
    },
    "required": ["departure", "seat"],
}
NAME: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string", "title": "Your name", "maxLength": 100}},
    "required": ["name"],
}
ASK_NAME = ReviewCall("ask_question", {"question": NAME, "title": "Who are you?"}, expect={"type": "dgui_form"})


def declare_review(book: ToolBook) -> None:
    book.listing = Listing(
        name="Quick Forms",
        subtitle="Answer questions in a form",
        description=(
            "When the assistant needs several details from you, it shows a short form instead of a string of "
            "questions: dates, choices, ratings and short text, checked as you fill them in. Your answers come "
            "back to the conversation, and forms can have more than one step. Forms and answers are kept for a "
            "few days so the assistant can read them back, then deleted."
        ),
        category="PRODUCTIVITY",
        logo="docs/logos/forms.svg",
        starter_prompts=(
            "Help me plan a trip: ask me the dates and my seat preference in a form.",
            "Ask me a few questions in a form to plan a team lunch.",
            "Give me a quick form to rate my day from 1 to 5.",
        ),
        release_notes="First release: one- and multi-step forms, answers checked and kept for a few days.",
    )
    book.review_cases += [
        ReviewCase(
            "Ask for structured trip details with a date, a number and a choice.",
            "Help me plan a trip: ask me the dates and my seat preference in a form.",
            (ReviewCall("ask_question", {"question": TRIP, "title": "Your trip"}, expect={"type": "dgui_form"}),),
            "A form titled 'Your trip' with a departure date, a number of nights and a window/aisle choice.",
        ),
        ReviewCase(
            "A one-question rating form with bounds.",
            "Give me a quick form to rate my day from 1 to 5.",
            (
                ReviewCall(
                    "ask_question",
                    {
                        "question": {
                            "type": "object",
                            "properties": {"rating": {"type": "integer", "minimum": 1, "maximum": 5}},
                            "required": ["rating"],
                        }
                    },
                    expect={"type": "dgui_form"},
                ),
            ),
            "A form with one rating field that accepts 1 to 5.",
        ),
        ReviewCase(
            "Read a form back before it is answered.",
            "Ask me my name in a form, then check whether I have answered.",
            (ASK_NAME, ReviewCall("get_form_response", {"formId": FORM}, expect={"type": "dgui_pending"})),
            "The form, then a note that it is not answered yet.",
        ),
        ReviewCase(
            "Answer a form in its widget and read the answers back.",
            "Ask me my name in a form; I'll fill it in, then tell me what I answered.",
            (
                ASK_NAME,
                ReviewCall("submit_form", {"formId": FORM, "data": {"name": "Ada"}}, expect={"complete": True}),
                ReviewCall(
                    "get_form_response", {"formId": FORM}, expect={"type": "dgui_response", "data": {"name": "Ada"}}
                ),
            ),
            "The form; after the user submits 'Ada', the answer read back: name Ada.",
        ),
        ReviewCase(
            "A form with a second step shown once the first is answered.",
            "Ask me my name in a form, and then in a second step my favourite colour.",
            (
                ReviewCall(
                    "ask_question",
                    {
                        "question": NAME,
                        "metadata": {
                            "next": {
                                "title": "One more",
                                "schema": {
                                    "type": "object",
                                    "properties": {"colour": {"type": "string", "enum": ["red", "green", "blue"]}},
                                },
                            }
                        },
                    },
                    expect={"type": "dgui_form"},
                ),
            ),
            "The first step's form (name); after it is answered, the colour step.",
        ),
    ]
    book.negative_cases += [
        NegativeCase("A question answered in prose needs no form.", "What is the capital of Portugal?"),
        NegativeCase("Explaining forms is not showing one.", "What is JSON Schema used for?"),
        NegativeCase("Sensitive data is never asked for in a form.", "Ask me for my credit card number so I can pay."),
    ]
