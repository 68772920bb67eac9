"""The regex engine that runs a form's `pattern`s and `patternProperties`, bounded in time, and the schema rules
that keep every pattern on it.

The model writes these patterns and the user's answers are matched against them. Python's `re` backtracks
without limit and cannot be interrupted, so a pathological pattern (nested quantifiers such as `^(a|a)*$`) would
spin on a short answer until the function's timeout. `regex` (mrab-regex) takes a timeout per match instead.
It has one cost `re` does not: compiling expands the required part of counted repeats, so `(?:(?:.{100}){100}){100}`
takes about 0.4 s and one more level runs out of memory. Compiling cannot be interrupted either, so a pattern's
repeats are bounded before it is ever compiled.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

# 0.1 s per match: an honest pattern on an answer of at most 16 KB matches in well under a millisecond, so one
# that runs this long is backtracking without end.
MATCH_TIMEOUT = 0.1
# All the matches of one answer share this much time, so many fields, or a long list of strings, cannot add up
# to the function's 20 s timeout either. Once it is spent, every further match counts as timed out.
ANSWER_BUDGET = 1.0
# What the patterns of one schema (one step of a form: each step has its own) may cost to compile, in the units of
# _cost (about 3 µs each at worst, measured on case-folded Unicode property sets): ~0.15 s. An ordinary pattern
# (a postcode, a date, a UUID) costs 20-2,000.
MAX_PATTERN_COST = 50_000


class AnswerBudget:
    """The time left for one answer's matches, and whether any ran out (see `answer_budget`)."""

    def __init__(self, seconds: float) -> None:
        self.deadline = time.monotonic() + seconds
        self.timed_out = False


_budget: ContextVar[AnswerBudget | None] = ContextVar("form_pattern_budget", default=None)
# A counted repeat: {m}, {m,}, {,n} or {m,n}. The single character class keeps the scan linear.
_COUNTED = re.compile(r"\{(\d*)(?:,\d*)?\}")
# Inline flags that switch on verbose mode, where whitespace and comments may sit inside and around repeats.
_VERBOSE = re.compile(r"\(\?[A-Za-z0-9-]*x")
# Inline flags for full case-folding, `(?f)`, or version 1 behaviour, `(?V1)` (which folds fully under `(?i)`):
# then a set holding a property costs about 20 times what _cost counts (`(?fi)[a\p{Ll}]`, ~65 µs a character),
# so one 32 KB pattern took 2 s to compile. Neither is JSON Schema's (ECMA-262) syntax.
_FULL_CASE = re.compile(r"\(\?[A-Za-z0-9-]*(?:f|V1)")
_FULL_CASE_WHY = "uses full case-folding (?f) or version 1 syntax (?V1), which form patterns do not support"


@contextmanager
def answer_budget(seconds: float | None = None) -> Iterator[AnswerBudget]:
    """Matches inside share `seconds` (default ANSWER_BUDGET) between them; the budget records any timeout."""
    budget = AnswerBudget(ANSWER_BUDGET if seconds is None else seconds)
    token = _budget.set(budget)
    try:
        yield budget
    finally:
        _budget.reset(token)


def search(pattern: str, text: str) -> bool:
    """Whether `pattern` matches anywhere in `text` (JSON Schema patterns are not anchored).

    Raises TimeoutError when the match runs past MATCH_TIMEOUT or what is left of the answer's budget.
    """
    import regex  # imported on first use, like jsonschema

    budget = _budget.get()
    timeout = MATCH_TIMEOUT if budget is None else min(MATCH_TIMEOUT, budget.deadline - time.monotonic())
    try:
        if timeout <= 0:
            raise TimeoutError("the time for this answer's patterns is spent")
        return regex.search(pattern, text, timeout=timeout) is not None
    except TimeoutError:
        if budget is not None:
            budget.timed_out = True
        raise


def _cost(pattern: str) -> int:
    """An upper bound on what compiling `pattern` costs, read from the text alone (no parse to get wrong).

    Compiling expands each counted repeat's minimum: an item repeated {m} costs m times the item. A repeat right
    after `)` may cover anything before it, so those multiply everything; any other applies to one item (a
    character, an escape or a set), which is no longer than the pattern. Miscounting a literal brace as a repeat
    only raises the bound.
    """
    cap = MAX_PATTERN_COST + 1
    groups, items = 1, 0
    for match in _COUNTED.finditer(pattern):
        digits = match[1]
        least = int(digits) if len(digits) <= 9 else cap  # int() of thousands of digits is itself slow
        if match.start() > 0 and pattern[match.start() - 1] == ")":
            groups = min(groups * max(least, 1), cap)
        else:
            items = min(items + max(least - 1, 0), cap)
    return min(groups * max(len(pattern), 1) * (1 + items), cap)


def _compile_error(pattern: str) -> str | None:
    import regex

    try:
        regex.compile(pattern)
    except (regex.error, ValueError) as exc:  # ValueError: conflicting inline flags such as (?au)
        return str(exc)
    except RecursionError:
        return "it nests too deeply"
    return None


def pattern_problem(pattern: str) -> str | None:
    """Why `pattern` cannot run on the bounded engine (verbose mode, repeats too costly to compile, no compile)."""
    if _VERBOSE.search(pattern):
        return "it uses verbose mode (?x), which form patterns do not support"
    if _FULL_CASE.search(pattern):
        return f"it {_FULL_CASE_WHY}"
    if _cost(pattern) > MAX_PATTERN_COST:
        return "it repeats too much to check safely"
    return _compile_error(pattern)


def compile_cost(pattern: str) -> int:
    """`_cost`: an upper bound of what compiling `pattern` costs (units of about 3 µs)."""
    return _cost(pattern)


def _objects(value: object, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], dict[str, Any]]]:
    """Every JSON object in `value` with its path: subschemas wherever they sit, and `enum`/`default` data too,
    since a `$ref` may point anywhere in the document."""
    if isinstance(value, dict):
        yield path, value
        for key, item in value.items():
            yield from _objects(item, (*path, str(key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _objects(item, (*path, str(index)))


def _patterns(node: dict[str, Any], path: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    if isinstance(node.get("pattern"), str):
        yield "/".join((*path, "pattern")), node["pattern"]
    if isinstance(node.get("patternProperties"), dict):
        for key in node["patternProperties"]:
            yield "/".join((*path, "patternProperties")), str(key)


def _shown(pattern: str, limit: int = 80) -> str:
    return repr(pattern if len(pattern) <= limit else pattern[: limit - 1] + "…")


def schema_problem(schema: dict[str, Any]) -> tuple[str, str] | None:
    """(where, what) for the first thing in `schema` that answers could not be checked against in bounded time.

    Every pattern must compile under `regex` with repeats within MAX_PATTERN_COST. `$schema` only at the root
    (a nested one would switch that subschema to jsonschema's own validator, which runs patterns with `re`),
    `$ref` only within the document, and no `unevaluatedProperties` beside `patternProperties` (jsonschema
    matches those keys with `re` to find which properties were evaluated).
    """
    cost = 0
    unevaluated, pattern_keys = None, False
    for path, node in _objects(schema):
        where = "/".join(path)
        if path and isinstance(node.get("$schema"), str):
            return f"{where}/$schema", "$schema is allowed only at the root of a form's schema"
        for keyword in ("$ref", "$dynamicRef"):
            ref = node.get(keyword)
            if isinstance(ref, str) and not ref.startswith("#"):
                return f"{where}/{keyword}".lstrip("/"), f"{_shown(ref)} points outside the schema; use #/… references"
        if isinstance(node.get("unevaluatedProperties"), (dict, bool)):
            unevaluated = unevaluated or f"{where}/unevaluatedProperties".lstrip("/")
        pattern_keys |= isinstance(node.get("patternProperties"), dict) and bool(node["patternProperties"])
        for at, pattern in _patterns(node, path):
            if _VERBOSE.search(pattern):
                return at, f"the pattern {_shown(pattern)} uses verbose mode (?x), which form patterns do not support"
            if _FULL_CASE.search(pattern):
                return at, f"the pattern {_shown(pattern)} {_FULL_CASE_WHY}"
            cost += _cost(pattern)
            if cost > MAX_PATTERN_COST:
                return at, (
                    f"the pattern {_shown(pattern)} repeats too much to check safely (counted repeats such as {{100}} "
                    "multiply when nested and add up across a step's schema); use smaller counts, or "
                    "minLength/maxLength"
                )
            error = _compile_error(pattern)
            if error is not None:
                return at, f"the pattern {_shown(pattern)} does not compile ({error})"
    if unevaluated and pattern_keys:
        return unevaluated, "unevaluatedProperties cannot be combined with patternProperties; use additionalProperties"
    return None
