"""Reading and checking a form definition: JSON Schema (Draft-07 or 2020-12) for an object with properties.

The model writes these schemas, so they are checked like any untrusted input: against the JSON Schema
meta-schema, for size and depth, and for patterns the answers could not be matched against in bounded time
(patterns.py), before anything is stored or rendered.
"""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING, Any

from widget_mcp.apps.forms.domain.answerable import check_answerable
from widget_mcp.apps.forms.domain.complexity import read_schema
from widget_mcp.apps.forms.domain.errors import InvalidSchema, TooComplex
from widget_mcp.apps.forms.domain.limits import FormLimits
from widget_mcp.apps.forms.domain.patterns import pattern_problem, schema_problem

if TYPE_CHECKING:
    from jsonschema import FormatChecker

MAX_SCHEMA_BYTES = 32 * 1024
MAX_UI_SCHEMA_BYTES = 16 * 1024
MAX_DEPTH = 12
MAX_PROPERTIES = 100
# No step counter runs in the meta-schema check, which costs about 0.2 ms per subschema under 2020-12 (jsonschema
# resolves its $dynamicRefs for each): a form, all its steps together, holds at most this many objects and
# booleans (any of them may be a subschema), about 0.4 s of checking.
MAX_SCHEMA_OBJECTS = 2_000
# A schema names its dialect in `$schema`; these are the ones we accept (the form widget's validator speaks both).
DIALECTS = ("http://json-schema.org/draft-07/schema", "https://json-schema.org/draft/2020-12/schema")


def read_json_object(value: object, what: str) -> dict[str, Any]:
    """`value` as a JSON object: models send these as objects or as JSON text (the DGUI convention)."""
    parsed = value
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError as exc:
            raise InvalidSchema(f"Invalid JSON in {what}: {exc}.", value) from None
    if not isinstance(parsed, dict):
        raise InvalidSchema(f"The {what} must be a JSON object, not {type(parsed).__name__}.", value)
    return parsed


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def _objects(value: object) -> int:
    """How many objects and booleans `value` holds, itself included."""
    count, stack = 0, [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (dict, bool)):
            count += 1
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return count


def _size(value: object) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


@cache
def _meta_formats() -> FormatChecker:
    """jsonschema's format checks for the meta-schema, with `"format": "regex"` on the bounded engine: its own
    compiles with `re`, which spends milliseconds on some short patterns (case-insensitive ranges)."""
    from jsonschema import FormatChecker

    checker = FormatChecker()
    checker.checks("regex")(lambda pattern: not isinstance(pattern, str) or pattern_problem(pattern) is None)
    return checker


def check_form_schema(
    schema: dict[str, Any], limits: FormLimits | None = None, objects_left: int = MAX_SCHEMA_OBJECTS
) -> int:
    """Raise InvalidSchema naming the problem, or TooComplex when one value could take more evaluation steps to
    check than `limits` allow or the schema holds more than `objects_left` objects (what the form's earlier steps
    left of MAX_SCHEMA_OBJECTS). Returns how many it holds."""
    # jsonschema costs ~0.1 s of import: paid by the first form, not by every cold start.
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import validator_for

    if _size(schema) > MAX_SCHEMA_BYTES:
        raise InvalidSchema(f"Invalid JSON schema. It is larger than {MAX_SCHEMA_BYTES // 1024} KB.", schema)
    if _depth(schema) > MAX_DEPTH:
        raise InvalidSchema(f"Invalid JSON schema. It nests deeper than {MAX_DEPTH} levels.", schema)
    objects = _objects(schema)
    if objects > objects_left:
        raise TooComplex(
            f"Invalid JSON schema: the form holds more than {MAX_SCHEMA_OBJECTS:,} subschemas (objects and booleans, "
            "all its steps together), more than can be checked in time. Write a repeated part once under $defs and "
            "refer to it with $ref.",
            schema,
        )
    dialect = str(schema.get("$schema", "")).rstrip("#")
    if dialect and dialect not in DIALECTS:
        raise InvalidSchema(f"Invalid JSON schema. Unsupported $schema {dialect!r}; use Draft-07 or 2020-12.", schema)
    # Before the meta-schema, whose "format": "regex" check compiles patterns with `re`: this one bounds them first.
    problem = schema_problem(schema)
    if problem is not None:
        where, what = problem
        raise InvalidSchema(f"Invalid JSON schema at {where or 'the root'}: {what}.", schema)
    cls = validator_for(schema, default=Draft202012Validator)
    try:
        cls.check_schema(schema, format_checker=_meta_formats())  # type: ignore[call-arg]  # the protocol omits it
    except SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "the root"
        raise InvalidSchema(f"Invalid JSON schema at {where}: {exc.message}.", schema) from None
    if schema.get("type") != "object":
        raise InvalidSchema('Invalid JSON schema. A form\'s schema must have "type": "object".', schema)
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not properties:
        raise InvalidSchema("Invalid JSON schema. Missing 'properties' field.", schema)
    if len(properties) > MAX_PROPERTIES:
        raise InvalidSchema(f"Invalid JSON schema. A form has at most {MAX_PROPERTIES} fields.", schema)
    missing = [name for name in schema.get("required", []) if name not in properties]
    if missing:
        raise InvalidSchema(f"Invalid JSON schema. Required fields {missing} are not in 'properties'.", schema)
    limits = limits or FormLimits()
    if limits.answer_bytes is not None:
        check_answerable(schema, limits.answer_bytes)
    # `$schema` is dropped before answers are checked (answers.py); the rest is what they are checked against.
    body = {key: value for key, value in schema.items() if key != "$schema"}
    read_schema(body, frozenset(cls.VALIDATORS), limits.value_steps)
    return objects


def check_ui_schema(ui_schema: dict[str, Any]) -> None:
    if _size(ui_schema) > MAX_UI_SCHEMA_BYTES:
        raise InvalidSchema(f"Invalid uiSchema. It is larger than {MAX_UI_SCHEMA_BYTES // 1024} KB.", ui_schema)
    if _depth(ui_schema) > MAX_DEPTH:
        raise InvalidSchema(f"Invalid uiSchema. It nests deeper than {MAX_DEPTH} levels.", ui_schema)
