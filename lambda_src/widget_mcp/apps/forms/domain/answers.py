"""Checking submitted data against a form's schema: every problem, by field, in words a person can act on."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from widget_mcp.apps.forms.domain.errors import InvalidAnswer

if TYPE_CHECKING:
    from jsonschema import FormatChecker
    from jsonschema.exceptions import ValidationError


@cache
def _formats() -> FormatChecker:
    from jsonschema import FormatChecker  # imported on first use, like in schema.py

    return FormatChecker()


def field_errors(schema: dict[str, Any], data: dict[str, Any]) -> dict[str, str]:
    """{field path: message} for each way `data` breaks `schema` (formats included); empty when it is valid."""
    from jsonschema.validators import validator_for

    validator = validator_for(schema)(schema, format_checker=_formats())
    errors: dict[str, str] = {}
    for error in sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path)):
        path = ".".join(str(p) for p in error.absolute_path)
        if error.validator == "required" and isinstance(error.instance, dict):
            for name in error.validator_value or ():  # type: ignore[union-attr]
                if name not in error.instance:
                    errors.setdefault(".".join(filter(None, [path, str(name)])), "This field is required.")
            continue
        errors.setdefault(path or "(form)", _message(error))
    return errors


_FORMAT_NAMES = {
    "date": "date (YYYY-MM-DD)",
    "date-time": "date and time (e.g. 2026-01-31T09:30:00Z)",
    "time": "time (e.g. 09:30:00Z)",
    "email": "email address",
    "idn-email": "email address (idn-email)",
    "uri": "URL",
    "ipv4": "IPv4 address",
    "uuid": "UUID",
}
_TYPE_NAMES = {
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "yes or no",
    "array": "a list",
    "object": "a group of fields",
}


def _message(error: ValidationError) -> str:
    """The problem in a form-filler's words; jsonschema's own sentence where there is no better one."""
    keyword, expected = error.validator, error.validator_value
    if keyword == "format":
        return f"Enter a valid {_FORMAT_NAMES.get(str(expected), str(expected))}."
    if keyword == "type" and isinstance(expected, str):
        return f"This must be {_TYPE_NAMES.get(expected, expected)}."
    if keyword == "enum" and isinstance(expected, list):
        return "Choose one of: " + ", ".join(str(v) for v in expected) + "."
    bounds = {
        "minimum": "at least",
        "maximum": "at most",
        "exclusiveMinimum": "more than",
        "exclusiveMaximum": "less than",
    }
    if keyword in bounds:
        return f"This must be {bounds[str(keyword)]} {expected}."
    if keyword == "minLength":
        return f"This needs at least {expected} characters."
    if keyword == "maxLength":
        return f"This allows at most {expected} characters."
    raw = error.message
    return raw[0].upper() + raw[1:] + ("" if raw.endswith(".") else ".")


def check_answers(schema: dict[str, Any], data: object) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise InvalidAnswer("The answer must be an object of field values.", data, {"(form)": "Not an object."})
    errors = field_errors(schema, data)
    if errors:
        summary = "; ".join(f"{field}: {message}" for field, message in errors.items())
        raise InvalidAnswer(f"Some answers need fixing: {summary}", data, errors)
    return data
