"""Checking submitted data against a form's schema: every problem, by field, in words a person can act on."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from widget_mcp.apps.forms.domain.errors import InvalidAnswer

if TYPE_CHECKING:
    from jsonschema import FormatChecker


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
        errors.setdefault(path or "(form)", _message(error.validator, error.message))
    return errors


def _message(keyword: object, raw: str) -> str:
    return raw[0].upper() + raw[1:] + ("" if raw.endswith(".") else ".")


def check_answers(schema: dict[str, Any], data: object) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise InvalidAnswer("The answer must be an object of field values.", data, {"(form)": "Not an object."})
    errors = field_errors(schema, data)
    if errors:
        summary = "; ".join(f"{field}: {message}" for field, message in errors.items())
        raise InvalidAnswer(f"Some answers need fixing: {summary}", data, errors)
    return data
