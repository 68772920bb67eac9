"""Checking submitted data against a form's schema: every problem, by field, in words a person can act on."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from widget_mcp.apps.forms.domain.bounded_keywords import PATTERN_TIMED_OUT as PATTERN_TIMED_OUT
from widget_mcp.apps.forms.domain.bounded_keywords import bounded, formats
from widget_mcp.apps.forms.domain.complexity import read_schema
from widget_mcp.apps.forms.domain.errors import InvalidAnswer, InvalidSchema, TooComplex
from widget_mcp.apps.forms.domain.limits import FormLimits, counting
from widget_mcp.apps.forms.domain.patterns import answer_budget, schema_problem

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

# For a stored form that today's checks would refuse (asked before they existed): no answer can be vouched for.
FORM_UNCHECKABLE = "This form cannot be checked, so it cannot be submitted; ask for a new one."


# Error messages are cut here: jsonschema's own quote the whole value, and an answer's value may be 16 KB.
MAX_MESSAGE = 300
# The options an `enum` message lists before "…".
MAX_LISTED = 20
# The fields an answer's errors name, first by path: enough to fix an answer, and a bounded message.
MAX_FIELD_ERRORS = 100


def field_errors(schema: dict[str, Any], data: dict[str, Any], limits: FormLimits | None = None) -> dict[str, str]:
    """{field path: message} for each way `data` breaks `schema` (formats included); empty when it is valid.

    Raises TooComplex when checking takes more steps than `limits` allow.
    """
    from jsonschema.validators import validator_for
    from referencing import Registry
    from referencing.exceptions import Unresolvable

    limits = limits or FormLimits()
    if schema_problem(schema) is not None:
        return {"(form)": FORM_UNCHECKABLE}
    # The dialect comes from the root's `$schema`, which is then dropped: a `$ref: "#"` back to a root naming its
    # dialect would switch jsonschema to that dialect's own class, whose `pattern` runs on `re`.
    bounded_class = bounded(validator_for(schema))
    body = {key: value for key, value in schema.items() if key != "$schema"}
    # Read again on every check: a form stored before today's limits meets them too.
    try:
        reading = read_schema(body, frozenset(bounded_class.VALIDATORS), limits.value_steps)
    except InvalidSchema:
        return {"(form)": FORM_UNCHECKABLE}
    # An empty registry: a $ref never fetches anything (jsonschema's default one would download remote URLs).
    validator = bounded_class(body, format_checker=formats(), registry=Registry())
    try:
        with answer_budget() as budget, counting(limits.check_steps) as steps:
            steps.closure = reading.closure
            found = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    except Unresolvable:  # a #/… reference to a place the schema does not have
        return {"(form)": FORM_UNCHECKABLE}
    except TooComplex as exc:
        raise TooComplex(exc.message, data) from None
    except RecursionError:  # what the reading of the schema did not foresee still ends here, not in a 5xx
        raise TooComplex("This answer is too complex to check: it nests too deeply for its form.", data) from None
    errors: dict[str, str] = {}
    required_seen: set[tuple[str, int]] = set()
    for error in found:
        if len(errors) >= MAX_FIELD_ERRORS:
            break
        path = ".".join(str(p) for p in error.absolute_path)
        if error.validator == "required" and isinstance(error.instance, dict):
            # jsonschema reports each missing name with the whole list: read each list once per value.
            if (path, id(error.validator_value)) in required_seen:
                continue
            required_seen.add((path, id(error.validator_value)))
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
        listed = ", ".join(str(v) for v in expected[:MAX_LISTED]) + (", …" if len(expected) > MAX_LISTED else "")
        return f"Choose one of: {listed}."
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
    raw = error.message if len(error.message) <= MAX_MESSAGE else error.message[: MAX_MESSAGE - 1] + "…"
    return raw[0].upper() + raw[1:] + ("" if raw.endswith(".") else ".")


def check_answers(schema: dict[str, Any], data: object, limits: FormLimits | None = None) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise InvalidAnswer("The answer must be an object of field values.", data, {"(form)": "Not an object."})
    errors = field_errors(schema, data, limits)
    if errors:
        summary = "; ".join(f"{field}: {message}" for field, message in errors.items())
        raise InvalidAnswer(f"Some answers need fixing: {summary}", data, errors)
    return data
