"""How much work checking a form may take, counted in evaluation steps rather than time, so the same schema and
answer always get the same verdict.

One step is one keyword of the schema applied to one value of the answer (`properties`, `type`, `$ref`, …), plus
one per subschema of `allOf`/`anyOf`/`oneOf`, one per 16 entries of the lists and objects other keywords walk
(`required`, `properties`), one per item for `uniqueItems` and per entry of an `enum`'s set, one per error
produced at each level it passes, and more for long strings and long error messages. On this kind of
machine a step costs a few microseconds at worst, so 100,000 steps stay well under a second of CPU.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from widget_mcp.apps.forms.domain.errors import TooComplex

CHECK_STEPS = 100_000
VALUE_STEPS = 10_000


@dataclass(frozen=True)
class FormLimits:
    """`check_steps`: what checking one answer may spend in all; past it the answer is refused (too_complex).
    `value_steps`: what checking any one value of an answer may cost, read from the schema alone when the form
    is asked; a schema past it is refused (too_complex) before it is stored.
    `answer_bytes`: the most JSON one answer may hold (the tools' cap); a schema asking anywhere for a bigger value
    (answerable.py) is refused (invalid_schema). None: not checked."""

    check_steps: int = CHECK_STEPS
    value_steps: int = VALUE_STEPS
    answer_bytes: int | None = None


@dataclass
class Steps:
    """The steps left for checking one answer, and what the check may cache for its length."""

    limit: int
    left: int = 0
    # What applying each subschema (by id) costs on one value before descending (complexity.py).
    closure: dict[int, int] = field(default_factory=dict)
    # Canonical forms of the values compared by `enum`, `const` and `uniqueItems`, and the sets of `enum` lists, by
    # id, each beside its value: holding the value keeps its id from being reused while the check runs.
    canonical: dict[int, tuple[object, Any]] = field(default_factory=dict)
    enums: dict[int, tuple[object, frozenset[Any]]] = field(default_factory=dict)
    # The start of each value's repr that error messages show, by id, beside the value (bounded_keywords.py).
    shown: dict[int, tuple[object, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.left = self.limit

    def spend(self, count: int) -> None:
        self.left -= count
        if self.left < 0:
            raise TooComplex(
                f"This answer is too complex to check: it takes more than {self.limit:,} evaluation steps. "
                "Send a shorter answer, or ask a simpler form.",
            )


_steps: ContextVar[Steps | None] = ContextVar("form_check_steps", default=None)


@contextmanager
def counting(limit: int) -> Iterator[Steps]:
    """Steps spent inside (through `spend`) come out of `limit`; TooComplex once it is exceeded."""
    steps = Steps(limit)
    token = _steps.set(steps)
    try:
        yield steps
    finally:
        _steps.reset(token)


def current() -> Steps | None:
    return _steps.get()


def spend(count: int) -> None:
    steps = _steps.get()
    if steps is not None:
        steps.spend(count)


# Keywords that apply each subschema of their list to the value: one step each, since each costs a descent even
# when it holds no keyword (allOf of 2,000 empty schemas). Other lists and objects are walked with a membership
# test per entry (`required`, `properties`), about 1/16 of a step.
EACH_APPLIED = frozenset({"allOf", "anyOf", "oneOf"})
WALKED = 16


def keyword_cost(keyword: str, value: object) -> int:
    """What applying `keyword` with `value` costs, before the value checked and what it descends into."""
    if keyword in ("enum", "const"):
        return 1  # compared through a set built once per check (bounded_keywords.py), which charges its own entries
    if keyword in EACH_APPLIED and isinstance(value, list):
        return 1 + len(value)
    if keyword in ("dependentRequired", "dependencies") and isinstance(value, dict):
        names = sum(len(entry) for entry in value.values() if isinstance(entry, list))
        return 1 + (len(value) + names) // WALKED
    if isinstance(value, (list, dict)):
        return 1 + len(value) // WALKED
    return 1
