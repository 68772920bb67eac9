"""The seed's forms (001-dgui-protocol.md): its flight form verbatim, and its nine examples written as schemas."""

from __future__ import annotations

from typing import Any

FLIGHT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "destinationCity": {"type": "string", "title": "Destination City", "default": "Tokyo"},
        "departureDate": {"type": "string", "title": "Departure Date", "format": "date"},
        "returnDate": {"type": "string", "title": "Return Date", "format": "date"},
    },
    "required": ["destinationCity", "departureDate"],
}
FLIGHT_UI = {"departureDate": {"ui:widget": "date"}, "returnDate": {"ui:widget": "date"}}
# A second step (`metadata.next`) for the multi-step form tests.
TRAVELLERS_STEP: dict[str, Any] = {
    "title": "Travellers",
    "schema": {
        "type": "object",
        "properties": {"adults": {"type": "integer", "title": "Adults", "minimum": 1}},
        "required": ["adults"],
    },
}


def _obj(required: list[str], **properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


EXAMPLES: dict[str, dict[str, Any]] = {
    "meeting": _obj(
        ["title", "date"],
        title={"type": "string", "title": "Meeting Title"},
        attendees={"type": "array", "title": "Attendees", "items": {"type": "string", "format": "email"}},
        date={"type": "string", "format": "date-time", "title": "Date/Time"},
        agenda={"type": "string", "title": "Agenda"},
    ),
    "used_car": _obj(
        [],
        make={"type": "array", "items": {"type": "string", "enum": ["Honda", "Toyota"]}, "uniqueItems": True},
        model={"type": "string"},
        maxPrice={"type": "number", "minimum": 0, "maximum": 15000},
    ),
    "address": _obj(
        ["street", "city", "zip"],
        street={"type": "string"},
        city={"type": "string"},
        state={"type": "string"},
        zip={"type": "string", "pattern": "^[0-9]{5}$"},
    ),
    "notifications": _obj(
        [],
        emailAlerts={"type": "boolean"},
        pushNotifications={"type": "boolean"},
        digestTime={"type": "string", "format": "time"},
    ),
    "flight_next_week": _obj(
        ["from", "to", "departure"],
        **{
            "from": {"type": "string", "title": "Departure City"},
            "to": {"type": "string", "title": "Destination City"},
            "departure": {"type": "string", "format": "date"},
            "return": {"type": "string", "format": "date"},
            "airline": {"type": "string", "title": "Preferred Airline"},
        },
    ),
    "getaway": _obj(
        ["destination"],
        destination={"type": "string"},
        budget={"type": "integer", "minimum": 0},
        activities={"type": "array", "items": {"type": "string", "enum": ["hiking", "museums", "beach", "food"]}},
        accommodation={"type": "string", "enum": ["hotel", "apartment", "camping"]},
    ),
    "profile": _obj(
        ["fullName"],
        fullName={"type": "string"},
        picture={"type": "string", "format": "data-url"},
        bio={"type": "string", "maxLength": 500},
        links={"type": "array", "items": {"type": "string", "format": "uri"}},
    ),
    "rectangle": _obj(
        ["length", "width"],
        length={"type": "number", "exclusiveMinimum": 0},
        width={"type": "number", "exclusiveMinimum": 0},
    ),
    "confirm_item": _obj(["item"], item={"type": "string", "enum": ["Basic plan", "Pro plan"], "title": "Which one?"}),
}
