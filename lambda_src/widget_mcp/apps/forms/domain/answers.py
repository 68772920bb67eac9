"""Checking submitted data against a form's schema: every problem, by field, in words a person can act on."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING, Any, cast

from widget_mcp.apps.forms.domain.errors import InvalidAnswer
from widget_mcp.apps.forms.domain.patterns import answer_budget, schema_problem, search

if TYPE_CHECKING:
    from jsonschema import FormatChecker
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

PATTERN_TIMED_OUT = "This answer could not be checked against the expected pattern in time; try a shorter one."
# For a stored form that today's checks would refuse (asked before they existed): no answer can be vouched for.
FORM_UNCHECKABLE = "This form cannot be checked, so it cannot be submitted; ask for a new one."


def _is_regex(instance: object) -> bool:
    """An answer in a `"format": "regex"` field: compiled by `re` (never run, never expanded like `regex` does)."""
    if isinstance(instance, str):
        re.compile(instance)
    return True


@cache
def _formats() -> FormatChecker:
    from jsonschema import FormatChecker  # imported on first use, like in schema.py

    checker = FormatChecker()
    # jsonschema's own check lets OverflowError ("a{99999999999}") and RecursionError (deep nesting) escape.
    checker.checks("regex", raises=(re.error, OverflowError, RecursionError))(_is_regex)
    return checker


# The keywords that match a schema's patterns against answers, as jsonschema's own but on the bounded engine:
# `pattern` on strings, `patternProperties` (and `additionalProperties`, which skips the properties they match)
# on the names of an object's fields. A timeout is a message for that field, never an exception.


def _pattern(validator: Any, pattern: str, instance: object, schema: dict[str, Any]) -> Iterator[ValidationError]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "string"):
        return
    try:
        matched = search(pattern, cast("str", instance))
    except TimeoutError:
        yield ValidationError(PATTERN_TIMED_OUT)
        return
    if not matched:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: dict[str, Any], instance: object, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    fields = cast("dict[str, Any]", instance)
    for pattern, subschema in patterns.items():
        for name, value in fields.items():
            try:
                matched = search(pattern, name)
            except TimeoutError:
                yield ValidationError(PATTERN_TIMED_OUT, path=(name,))
                continue
            if matched:
                yield from validator.descend(value, subschema, path=name, schema_path=pattern)


def _additional_properties(
    validator: Any, allowed: object, instance: object, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    fields = cast("dict[str, Any]", instance)
    properties, patterns = schema.get("properties", {}), schema.get("patternProperties", {})
    extras = []
    for name in fields:
        if name in properties:
            continue
        try:
            if any(search(pattern, name) for pattern in patterns):
                continue
        except TimeoutError:
            yield ValidationError(PATTERN_TIMED_OUT, path=(name,))
            continue
        extras.append(name)
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(fields[extra], allowed, path=extra)
    elif not allowed and extras:
        # jsonschema's own sentences.
        names = ", ".join(repr(extra) for extra in sorted(extras))
        if patterns:
            verb = "does" if len(extras) == 1 else "do"
            regexes = ", ".join(repr(pattern) for pattern in sorted(patterns))
            yield ValidationError(f"{names} {verb} not match any of the regexes: {regexes}")
        else:
            verb = "was" if len(extras) == 1 else "were"
            yield ValidationError(f"Additional properties are not allowed ({names} {verb} unexpected)")


@cache
def _bounded(base: type[Validator]) -> type[Validator]:
    """`base` (the schema's dialect) with every keyword that runs a pattern on answers moved to the bounded engine."""
    from jsonschema.validators import extend

    keywords = {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
    }
    return cast("type[Validator]", extend(base, keywords))  # type: ignore[no-untyped-call]


def field_errors(schema: dict[str, Any], data: dict[str, Any]) -> dict[str, str]:
    """{field path: message} for each way `data` breaks `schema` (formats included); empty when it is valid."""
    from jsonschema.validators import validator_for
    from referencing import Registry
    from referencing.exceptions import Unresolvable

    if schema_problem(schema) is not None:
        return {"(form)": FORM_UNCHECKABLE}
    # The dialect comes from the root's `$schema`, which is then dropped: a `$ref: "#"` back to a root naming its
    # dialect would switch jsonschema to that dialect's own class, whose `pattern` runs on `re`.
    bounded = _bounded(validator_for(schema))
    body = {key: value for key, value in schema.items() if key != "$schema"}
    # An empty registry: a $ref never fetches anything (jsonschema's default one would download remote URLs).
    validator = bounded(body, format_checker=_formats(), registry=Registry())
    try:
        with answer_budget() as budget:
            found = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    except Unresolvable:  # a #/… reference to a place the schema does not have
        return {"(form)": FORM_UNCHECKABLE}
    errors: dict[str, str] = {}
    for error in found:
        path = ".".join(str(p) for p in error.absolute_path)
        if error.validator == "required" and isinstance(error.instance, dict):
            for name in error.validator_value or ():  # type: ignore[union-attr]
                if name not in error.instance:
                    errors.setdefault(".".join(filter(None, [path, str(name)])), "This field is required.")
            continue
        errors.setdefault(path or "(form)", _message(error))
    if budget.timed_out and PATTERN_TIMED_OUT not in errors.values():
        # Under `not`, `anyOf`, `oneOf` or `if`, a timed-out match would read as a verdict and be swallowed:
        # an answer that could not be checked never passes.
        errors.setdefault("(form)", PATTERN_TIMED_OUT)
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
