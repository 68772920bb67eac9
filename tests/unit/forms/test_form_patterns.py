"""Form patterns run on a bounded engine: a pathological pattern costs its field a message, never a hung call,
and a pattern that could not be run in bounded time is refused when the form is asked."""

from __future__ import annotations

import re
from typing import Any

import pytest
from seed_forms import FLIGHT
from widget_mcp.apps.forms.domain import (
    FormSession,
    FormStep,
    InvalidAnswer,
    InvalidSchema,
    check_form_schema,
    field_errors,
)
from widget_mcp.apps.forms.domain.answers import FORM_UNCHECKABLE, PATTERN_TIMED_OUT
from widget_mcp.apps.forms.domain.patterns import answer_budget, search

# Exponential backtracking in `re` and in `regex` alike: 2**28 ways to fail on ADVERSARIAL, hours of work. These
# tests end quickly only because the engine's timeout fires.
CATASTROPHIC = "^(a|a)*$"
ADVERSARIAL = "a" * 28 + "!"
UUID = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"


def _form(**code: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"code": {"type": "string", **code}}, "required": ["code"]}


def test_a_catastrophic_pattern_gives_its_field_a_message_and_the_form_stays_pending() -> None:
    session = FormSession.ask("f1", _form(pattern=CATASTROPHIC))

    with pytest.raises(InvalidAnswer) as caught:
        session.submit({"code": ADVERSARIAL})

    assert caught.value.fields == {"code": PATTERN_TIMED_OUT}
    assert caught.value.payload == {"code": ADVERSARIAL}
    assert (session.current, session.complete) == (0, False)
    assert session.submit({"code": "aaaa"}) == (0, False)
    assert session.complete


def test_a_field_name_that_a_catastrophic_pattern_property_chokes_on_gets_the_same_message() -> None:
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "patternProperties": {CATASTROPHIC: {"type": "string"}},
        "additionalProperties": False,
    }
    check_form_schema(schema)

    assert field_errors(schema, {"name": "x", ADVERSARIAL: "v"}) == {ADVERSARIAL: PATTERN_TIMED_OUT}


def test_once_an_answers_time_for_patterns_is_spent_no_further_pattern_runs() -> None:
    with answer_budget(seconds=0), pytest.raises(TimeoutError):
        search("a", "a")


NAMED = {"type": "object", "properties": {"name": {}}, "patternProperties": {"^x-": {"type": "string"}}}


@pytest.mark.parametrize(
    ("schema", "data", "errors"),
    [
        (_form(pattern="^[0-9]{5}$"), {"code": "12345"}, {}),
        (_form(pattern="^[0-9]{5}$"), {"code": "1234"}, {"code": "'1234' does not match '^[0-9]{5}$'."}),
        (_form(pattern="[0-9]"), {"code": "ab1"}, {}),
        (_form(pattern=UUID), {"code": "0f8fad5b-d9cb-469f-a165-70867728950e"}, {}),
        (_form(pattern="(?i)^[a-z]+$"), {"code": "ABC"}, {}),
        (NAMED, {"x-a": "1"}, {}),
        (NAMED, {"x-a": 1}, {"x-a": "This must be text."}),
        (
            {**NAMED, "additionalProperties": False},
            {"x-a": "1", "other": 1},
            {"(form)": "'other' does not match any of the regexes: '^x-'."},
        ),
        (
            {**NAMED, "additionalProperties": {"type": "integer"}},
            {"other": "1"},
            {"other": "This must be a whole number."},
        ),
        (
            {"type": "object", "properties": {"a": {}}, "additionalProperties": False},
            {"a": 1, "b": 2},
            {"(form)": "Additional properties are not allowed ('b' was unexpected)."},
        ),
        (
            {"type": "object", "properties": {"tags": {"type": "array", "items": {"pattern": "^#"}}}},
            {"tags": ["#ok", "no"]},
            {"tags.1": "'no' does not match '^#'."},
        ),
        (
            {"type": "object", "properties": {"name": {}}, "propertyNames": {"pattern": "^[a-z]+$"}},
            {"Bad": 1},
            {"(form)": "'Bad' does not match '^[a-z]+$'."},
        ),
    ],
)
def test_ordinary_patterns_accept_and_reject_as_before(
    schema: dict[str, Any], data: dict[str, Any], errors: dict[str, str]
) -> None:
    check_form_schema(schema)

    assert field_errors(schema, data) == errors


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        (_form(pattern="("), "at properties/code/pattern: the pattern '(' does not compile (missing ) at position 1)"),
        # `re` compiles this one (as a literal "{e}"), but `regex`, which runs the patterns, does not.
        (_form(pattern=r"^\d{3}{e}$"), r"the pattern '^\\d{3}{e}$' does not compile"),
        (
            {
                "type": "object",
                "properties": {"codes": {"type": "array", "items": {"$ref": "#/$defs/code"}}},
                "$defs": {"code": {"type": "string", "pattern": "[a-"}},
            },
            "at $defs/code/pattern: the pattern '[a-' does not compile",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "object", "patternProperties": {"(x": {}}}}},
            "at properties/a/patternProperties: the pattern '(x' does not compile",
        ),
        (_form(pattern="^(?:(?:.{100}){100}){100}$"), "the pattern '^(?:(?:.{100}){100}){100}$' repeats too much"),
        (_form(pattern="a{99999999999}"), "repeats too much to check safely"),
        (_form(pattern="(?x) a b"), "uses verbose mode (?x)"),
        (_form(pattern="(?fi)[a\\p{Ll}]"), "uses full case-folding (?f) or version 1 syntax (?V1)"),
        (_form(pattern="^(?i-f:[a\\p{Ll}])$"), "uses full case-folding (?f)"),
        (_form(pattern="(?V1i)[\\p{L}--\\p{Lu}]"), "uses full case-folding (?f) or version 1 syntax (?V1)"),
        (
            {"type": "object", "properties": {"a": {"type": "object", "patternProperties": {"(?iV1)^k": {}}}}},
            "at properties/a/patternProperties: the pattern '(?iV1)^k' uses full case-folding",
        ),
        (
            _form(**{"$schema": "http://json-schema.org/draft-07/schema#", "pattern": "^a"}),
            "at properties/code/$schema: $schema is allowed only at the root",
        ),
        (
            _form(**{"$ref": "https://example.com/code.json"}),
            "'https://example.com/code.json' points outside the schema",
        ),
        (
            {**NAMED, "properties": {"a": {}}, "unevaluatedProperties": False},
            "at unevaluatedProperties: unevaluatedProperties cannot be combined with patternProperties",
        ),
    ],
)
def test_a_schema_with_a_pattern_that_cannot_run_in_bounded_time_is_refused_naming_it(
    schema: dict[str, Any], message: str
) -> None:
    with pytest.raises(InvalidSchema, match=re.escape(message)) as caught:
        check_form_schema(schema)

    assert caught.value.message.startswith("Invalid JSON schema at ")
    assert caught.value.payload == schema


def test_the_patterns_of_one_form_share_one_allowance_of_repeats() -> None:
    wide = {"type": "string", "pattern": "^[a-z]{2000}$"}
    check_form_schema({"type": "object", "properties": {"a": wide}})
    check_form_schema(
        {"type": "object", "properties": {f"id{i}": {"type": "string", "pattern": UUID} for i in range(25)}}
    )

    with pytest.raises(InvalidSchema, match=r"at properties/b/pattern: .* repeats too much"):
        check_form_schema({"type": "object", "properties": {"a": wide, "b": wide}})


def test_a_stored_form_that_would_now_be_refused_takes_no_answer_and_stays_pending() -> None:
    record = FormSession.ask("f2", FLIGHT).to_record()
    record["steps"][0]["schema"] = _form(**{"$schema": "http://json-schema.org/draft-07/schema#", "pattern": "^1"})
    session = FormSession.from_record(record)

    with pytest.raises(InvalidAnswer) as caught:
        session.submit({"code": "12"})

    assert caught.value.fields == {"(form)": FORM_UNCHECKABLE}
    assert not session.complete


def test_a_reference_to_a_definition_the_form_lacks_is_refused_when_asked_and_a_message_for_a_stored_form() -> None:
    schema = _form(**{"$ref": "#/$defs/missing"})
    with pytest.raises(InvalidSchema, match="'#/\\$defs/missing' points nowhere"):
        FormSession.ask("f3", schema)
    stored = FormSession("f3", [FormStep(schema)])  # as a form asked before references were read

    with pytest.raises(InvalidAnswer) as caught:
        stored.submit({"code": "12"})

    assert caught.value.fields == {"(form)": FORM_UNCHECKABLE}


@pytest.mark.parametrize("answer", ["a{99999999999}", "(" * 2000 + ")" * 2000, "("])
def test_an_answer_in_a_regex_field_that_python_cannot_compile_is_a_message_for_that_field(answer: str) -> None:
    schema = {"type": "object", "properties": {"r": {"type": "string", "format": "regex"}}}

    assert field_errors(schema, {"r": answer}) == {"r": "Enter a valid regex."}


@pytest.mark.parametrize("answer", ["(?fi)[a\\p{Ll}]", "(?V1i)[\\p{L}--\\p{Lu}]"])
def test_an_answer_in_a_regex_field_that_folds_case_fully_is_refused_as_form_patterns_are(answer: str) -> None:
    schema = {"type": "object", "properties": {"r": {"type": "string", "format": "regex"}}}

    assert field_errors(schema, {"r": answer}) == {"r": "Enter a valid regex."}


def test_a_reference_back_to_a_root_naming_its_dialect_still_runs_patterns_on_the_bounded_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # jsonschema's own classes run `pattern` with re.search: reaching it here would mean an unbounded match.
    def unbounded(*_: object) -> None:
        raise AssertionError("a form pattern ran on Python's re")

    monkeypatch.setattr(re, "search", unbounded)
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"name": {"type": "string", "pattern": "^b"}, "child": {"$ref": "#"}},
    }
    assert set(field_errors(schema, {"child": {"name": "a"}})) == {"child.name"}


@pytest.mark.parametrize(
    "wrapped",
    [
        {"not": {"pattern": CATASTROPHIC}},
        {"anyOf": [{"pattern": CATASTROPHIC}, {"type": "integer"}]},
        {"if": {"pattern": CATASTROPHIC}, "then": {"type": "integer"}},
    ],
    ids=["not", "anyOf", "if"],
)
def test_a_timeout_that_a_schema_would_negate_or_swallow_still_refuses_the_answer(wrapped: dict[str, object]) -> None:
    schema = {"type": "object", "properties": {"x": {"type": "string", **wrapped}}}
    errors = field_errors(schema, {"x": ADVERSARIAL})
    # `anyOf` also fails on its own (no branch held); `not` and `if` would have let the answer through.
    assert errors["(form)"] == PATTERN_TIMED_OUT
    assert set(errors) <= {"(form)", "x"}
