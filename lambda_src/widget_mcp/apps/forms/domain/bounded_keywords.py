"""The JSON Schema keywords an answer is checked with (answers.py): jsonschema's own, each counting its steps
(limits.py); the ones that match a pattern against answers on the bounded engine (patterns.py), and `enum`, `const`
and `uniqueItems` comparing in linear time."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import cache
from itertools import islice, repeat
from typing import TYPE_CHECKING, Any, cast

from widget_mcp.apps.forms.domain.limits import Steps, current, keyword_cost, spend
from widget_mcp.apps.forms.domain.patterns import compile_cost, pattern_problem, search

if TYPE_CHECKING:
    from jsonschema import FormatChecker
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

PATTERN_TIMED_OUT = "This answer could not be checked against the expected pattern in time; try a shorter one."


def _is_regex(instance: object) -> bool:
    """An answer in a `"format": "regex"` field: compiled on the bounded engine, as the form's own patterns are
    (Python's `re` compiles some short patterns, such as case-insensitive ranges, for milliseconds each)."""
    if not isinstance(instance, str):
        return True
    spend(compile_cost(instance))
    return pattern_problem(instance) is None


@cache
def formats() -> FormatChecker:
    """jsonschema's format checks, `regex` on the bounded engine."""
    from jsonschema import FormatChecker  # imported on first use, like in schema.py

    checker = FormatChecker()
    checker.checks("regex")(_is_regex)
    return checker


def _canonical(value: object, steps: Steps | None) -> object:
    """A hashable stand-in for a JSON value, equal exactly when JSON Schema calls the values equal (1 == 1.0, but
    true is not 1), cached by the value's id for the length of one check: comparing it is linear, where
    jsonschema's `enum`, `const` and `uniqueItems` compare value against value in Python (quadratic for
    `uniqueItems` on values that do not sort)."""
    cache = steps.canonical if steps is not None else {}
    found = cache.get(id(value))
    if found is not None and found[0] is value:
        return found[1]
    result: object
    if isinstance(value, bool) or value is None:
        result = ("b", value)
    elif isinstance(value, (int, float)):
        result = ("n", value)
    elif isinstance(value, str):
        result = ("s", value)
    elif isinstance(value, list):
        spend(len(value))
        result = ("l", tuple(_canonical(item, steps) for item in value))
    elif isinstance(value, dict):
        spend(len(value))
        result = ("o", frozenset((key, _canonical(item, steps)) for key, item in value.items()))
    else:
        result = ("?", id(value))
    cache[id(value)] = (value, result)
    return result


def _enum(validator: Any, enums: object, instance: object, schema: dict[str, Any]) -> Iterator[ValidationError]:
    from jsonschema.exceptions import ValidationError

    steps = current()
    found = steps.enums.get(id(enums)) if steps is not None else None
    if found is not None and found[0] is enums:
        members = found[1]
    else:
        spend(len(cast("list[object]", enums)))
        members = frozenset(_canonical(member, steps) for member in cast("list[object]", enums))
        if steps is not None:
            steps.enums[id(enums)] = (enums, members)
    if _canonical(instance, steps) not in members:
        yield ValidationError(f"{_short(instance)} is not one of the allowed values")


def _const(validator: Any, const: object, instance: object, schema: dict[str, Any]) -> Iterator[ValidationError]:
    from jsonschema.exceptions import ValidationError

    steps = current()
    if _canonical(instance, steps) != _canonical(const, steps):
        yield ValidationError(f"{_short(const)} was expected")


def _unique_items(
    validator: Any, unique: object, instance: object, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    from jsonschema.exceptions import ValidationError

    if not unique or not validator.is_type(instance, "array"):
        return
    items = cast("list[object]", instance)
    steps = current()
    spend(len(items))
    if len({_canonical(item, steps) for item in items}) < len(items):
        yield ValidationError(f"{_short(instance)} has non-unique elements")


def _overflow_safe(
    keyword: Callable[..., Iterable[ValidationError] | None],
) -> Callable[..., Iterator[ValidationError]]:
    """`keyword` (jsonschema's multipleOf) with a number too large for a float as a message, not an exception:
    `10**400 / 0.1` raises OverflowError."""

    def run(validator: Any, value: object, instance: object, schema: dict[str, Any]) -> Iterator[ValidationError]:
        from jsonschema.exceptions import ValidationError

        try:
            found = list(keyword(validator, value, instance, schema) or ())
        except OverflowError:
            found = [ValidationError(f"{_short(instance)} is too large to check against multipleOf {value!r}")]
        yield from found

    return run


class _Text(str):
    """Text `_short` writes as it is, between the values it writes out."""


def _short(value: object, limit: int = 80) -> str:
    """`repr(value)` cut to `limit` characters, written only as far as that, once per value in a check: the whole
    repr of a 16 KB answer costs a millisecond, which `enum` and `const` would spend at each of the (up to 10,000)
    places they apply to one value, for one step each."""
    steps = current()
    found = steps.shown.get(id(value)) if steps is not None else None
    if found is not None and found[0] is value:
        return found[1]
    text = _written(value, limit)
    if steps is not None:
        steps.shown[id(value)] = (value, text)
    return text


def _written(value: object, limit: int) -> str:
    text = ""
    todo: list[object] = [value]  # what is left to write, the next last
    while todo and len(text) <= limit:
        item = todo.pop()
        if isinstance(item, _Text):
            text += item
        elif isinstance(item, (list, dict)):
            # Each entry takes at least two characters: the first limit // 2 say all that can be shown.
            entries = islice(item.items() if isinstance(item, dict) else zip(repeat(None), item), limit // 2 + 1)
            written: list[object] = [_Text("{" if isinstance(item, dict) else "[")]
            for index, (key, entry) in enumerate(entries):
                written += [_Text(", ")] if index else []
                written += [key, _Text(": ")] if isinstance(item, dict) else []
                written.append(entry)
            written.append(_Text("}" if isinstance(item, dict) else "]"))
            todo += reversed(written)
        elif isinstance(item, str) and len(item) > limit:
            text += repr(item[:limit])[:-1]  # longer than `limit` either way: the closing quote is cut off
        else:
            text += repr(item)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _unevaluated(
    keyword: Callable[..., Iterable[ValidationError] | None],
) -> Callable[..., Iterable[ValidationError] | None]:
    def run(validator: Any, value: object, instance: object, schema: dict[str, Any]) -> Any:
        # jsonschema walks everything the subschema applies in place to find what it evaluated.
        steps = current()
        if steps is not None:
            steps.spend(steps.closure.get(id(schema), 1))
        return keyword(validator, value, instance, schema)

    return run


def _charged(errors: Iterable[ValidationError], steps: Steps) -> Iterator[ValidationError]:
    for error in errors:
        steps.spend(1 + len(error.message) // 1024)
        yield error


def _counted(
    name: str, keyword: Callable[..., Iterable[ValidationError] | None]
) -> Callable[..., Iterable[ValidationError] | None]:
    """`keyword` charging its steps (limits.py) before it runs, and one per error it yields."""

    def run(validator: Any, value: object, instance: object, schema: dict[str, Any]) -> Any:
        steps = current()
        if steps is None:
            return keyword(validator, value, instance, schema)
        cost = keyword_cost(name, value)
        if isinstance(instance, str) and name in ("pattern", "format"):
            cost += len(instance) // 64
        elif isinstance(instance, dict) and name in ("patternProperties", "additionalProperties"):
            cost += len(instance) * max(1, len(schema.get("patternProperties") or ()))
        steps.spend(cost)
        errors = keyword(validator, value, instance, schema)
        return None if errors is None else _charged(errors, steps)

    return run


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
def bounded(base: type[Validator]) -> type[Validator]:
    """`base` (the schema's dialect) with every keyword counting its steps, the ones that run a pattern on answers
    moved to the bounded engine, and `enum`, `const` and `uniqueItems` comparing in linear time."""
    from jsonschema.validators import extend

    keywords: dict[str, Callable[..., Iterable[ValidationError] | None]] = {
        **base.VALIDATORS,
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
        "enum": _enum,
        "const": _const,
        "uniqueItems": _unique_items,
    }
    for name in ("unevaluatedProperties", "unevaluatedItems"):
        if name in keywords:
            keywords[name] = _unevaluated(keywords[name])
    if "multipleOf" in keywords:
        keywords["multipleOf"] = _overflow_safe(keywords["multipleOf"])
    counted = {name: _counted(name, keyword) for name, keyword in keywords.items()}
    return cast("type[Validator]", extend(base, counted))  # type: ignore[no-untyped-call]
