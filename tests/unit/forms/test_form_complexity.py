"""Checking a form costs a bounded number of evaluation steps: a schema that would make one value expensive is
refused when asked, an answer that would take too many steps is refused when submitted (the form stays as it
was), and the keywords replaced to get there (`enum`, `const`, `uniqueItems`) judge as jsonschema does."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator
from widget_mcp.apps.forms import inputs
from widget_mcp.apps.forms.domain import (
    FormLimits,
    FormSession,
    FormStep,
    InvalidSchema,
    TooComplex,
    check_form_schema,
    field_errors,
)
from widget_mcp.apps.forms.domain.complexity import MAX_ANSWER_DEPTH


def _doubling(levels: int) -> dict[str, Any]:
    defs: dict[str, Any] = {
        f"l{i}": {"allOf": [{"$ref": f"#/$defs/l{i + 1}"}, {"$ref": f"#/$defs/l{i + 1}"}]} for i in range(levels)
    }
    defs[f"l{levels}"] = {"type": "string"}
    return {"type": "object", "$defs": defs, "properties": {"a": {"$ref": "#/$defs/l0"}}}


def test_a_chain_of_refs_that_doubles_each_level_is_refused_past_the_value_limit_and_accepted_below_it() -> None:
    check_form_schema(_doubling(10))  # about 4,000 steps a value

    with pytest.raises(TooComplex, match="more than 10,000 evaluation steps"):
        check_form_schema(_doubling(12))
    with pytest.raises(TooComplex):
        check_form_schema(_doubling(10), FormLimits(check_steps=100_000, value_steps=1_000))


def test_a_form_stored_before_the_limits_is_too_complex_to_answer_and_stays_pending() -> None:
    session = FormSession("f1", [FormStep(_doubling(18))])

    with pytest.raises(TooComplex) as caught:
        session.submit({"a": "x"})

    assert caught.value.code == "too_complex"
    assert (session.current, session.complete) == (0, False)


def test_an_answer_past_the_check_limit_is_too_complex_and_a_smaller_one_is_checked() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer", "minimum": 0}}}}
    session = FormSession.ask("f2", schema, limits=FormLimits(check_steps=1_000, value_steps=100))

    with pytest.raises(TooComplex):
        session.submit({"a": [1] * 500}, limits=FormLimits(check_steps=1_000, value_steps=100))
    assert not session.complete
    assert session.submit({"a": [1] * 50}, limits=FormLimits(check_steps=1_000, value_steps=100)) == (0, False)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"$ref": "#/$defs/x"}}},
        {"type": "object", "properties": {"a": {}}, "allOf": [{"$ref": "#"}]},
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/nowhere"}}},
        {"type": "object", "properties": {"a": {"$dynamicRef": "#x"}}},
    ],
    ids=["itself", "the root in place", "nowhere", "dynamic"],
)
def test_a_reference_that_applies_itself_in_place_points_nowhere_or_is_dynamic_is_an_invalid_schema(
    schema: dict[str, Any],
) -> None:
    with pytest.raises(InvalidSchema):
        check_form_schema(schema)


def test_a_recursive_schema_through_properties_is_accepted_and_checks_deep_answers() -> None:
    node = {"type": "object", "properties": {"name": {"type": "string"}, "child": {"$ref": "#/$defs/node"}}}
    schema = {"type": "object", "$defs": {"node": node}, "properties": {"root": {"$ref": "#/$defs/node"}}}
    check_form_schema(schema)
    answer: dict[str, Any] = {"name": "leaf"}
    for _ in range(MAX_ANSWER_DEPTH - 2):
        answer = {"name": "n", "child": answer}

    assert field_errors(schema, {"root": answer}) == {}


@pytest.mark.parametrize(
    ("keyword", "value", "instance"),
    [
        ("enum", [1, "a", [1, {"x": True}]], 1.0),
        ("enum", [1, "a"], True),
        ("enum", [[1, {"x": True}]], [1.0, {"x": True}]),
        ("enum", [[1, {"x": True}]], [1, {"x": 1}]),
        ("enum", [None, False], 0),
        ("const", {"a": [1, 2]}, {"a": [1.0, 2]}),
        ("const", {"a": [1, 2]}, {"a": [2, 1]}),
        ("const", 0, False),
        ("uniqueItems", True, [1, 1.0]),
        ("uniqueItems", True, [1, True]),
        ("uniqueItems", True, [[1], 1, {"a": 1}, {"a": True}]),
        ("uniqueItems", True, [{"a": 1, "b": 2}, {"b": 2, "a": 1}]),
        ("uniqueItems", True, [0, False, None, "", [], {}]),
    ],
)
def test_enum_const_and_unique_items_judge_as_jsonschema_does(keyword: str, value: Any, instance: Any) -> None:
    schema = {"type": "object", "properties": {"a": {keyword: value}}}
    expected = Draft202012Validator(schema).is_valid({"a": instance})

    assert (field_errors(schema, {"a": instance}) == {}) is expected


def test_the_tools_refuse_answers_deeper_than_the_schema_reading_covers() -> None:
    assert inputs.MAX_ANSWER_DEPTH == MAX_ANSWER_DEPTH


class _Unread:
    """The rest of a large answer: a message that wrote it out would have spent what it costs, for nothing."""

    def __repr__(self) -> str:
        raise AssertionError("an error message wrote out more of the value than it shows")


LARGE = [[0, 0]] * 40 + [_Unread()] * 1000
SHOWN = repr([[0, 0]] * 40)[:79] + "…"


@pytest.mark.parametrize(
    ("keyword", "value", "answer", "message"),
    [
        ("enum", [1], LARGE, "Choose one of: 1."),
        ("const", LARGE, 1, f"{SHOWN} was expected."),
        ("uniqueItems", True, LARGE, f"{SHOWN} has non-unique elements."),
    ],
)
def test_an_error_message_writes_out_only_the_start_of_the_value_it_names(
    keyword: str, value: Any, answer: Any, message: str
) -> None:
    # enum and const may apply at up to 10,000 places to one value, each for a step: writing out the whole of a
    # 16 KB value at each of them took seconds.
    schema = {"type": "object", "properties": {"a": {keyword: value}}}

    assert field_errors(schema, {"a": answer}) == {"a": message}


def test_a_form_holding_more_subschemas_than_a_form_may_is_too_complex_in_one_step_or_across_its_steps() -> None:
    # The meta-schema check costs about 0.2 ms per subschema under 2020-12, and no step counter runs there:
    # 6,500 `true`s fit in 32 KB, and five such steps took 6 s to ask.
    from widget_mcp.apps.forms.domain.schema import MAX_SCHEMA_OBJECTS

    def step(objects: int) -> dict[str, Any]:
        return {"type": "object", "properties": {"a": {"anyOf": [True] * (objects - 3)}}}  # root, properties, a

    FormSession.ask("f", step(MAX_SCHEMA_OBJECTS))
    with pytest.raises(TooComplex, match="subschemas"):
        FormSession.ask("f", step(MAX_SCHEMA_OBJECTS + 1))
    per_step = MAX_SCHEMA_OBJECTS // 4
    chain = None
    for _ in range(3):
        chain = {"schema": step(per_step), **({"next": chain} if chain else {})}
    FormSession.ask("f", step(per_step), metadata={"next": chain})
    with pytest.raises(TooComplex, match="subschemas"):
        FormSession.ask("f", step(per_step), metadata={"next": {"schema": step(per_step), "next": chain}})
