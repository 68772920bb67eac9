"""The derived tests' plan of a call past each argument's cap (tests/argument_caps.py) holds for a user's app capped
in every way the guide asks for, served beside the registry's apps: each planned value is refused naming the
argument itself (not one of its items), and an argument no schema caps fails its test saying what to declare."""

from __future__ import annotations

from typing import Any

import pytest
from argument_caps import Unplanned, declared_arguments, fitting, plan_over_cap
from capped_app import book, loose_book, served_with_capped_app
from jsonschema import Draft202012Validator
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.wiring import Core, build_core

__all__ = ["served_with_capped_app"]

ME = {"openai/subject": "cap-planner"}
POLL = book.tools["capped_create_poll"]
LOOSE = loose_book.tools["loose_configure"]


@pytest.fixture
def core(monkeypatch: pytest.MonkeyPatch, served_with_capped_app: None) -> Core:
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    return build_core(Settings(allowed_hosts=("api.example.com",)), store=InMemoryDocumentStore())


def _poll_arguments(core: Core) -> list[tuple[str, str, dict[str, Any]]]:
    return [row for row in declared_arguments(core.runtime.tool_list) if row[0] == POLL.name]


def test_the_app_is_served_with_a_capped_list_a_capped_dict_and_an_exclusive_maximum(core: Core) -> None:
    published = {argument: prop for _, argument, prop in _poll_arguments(core)}
    assert published["options"]["maxItems"] == 8
    assert published["weights"]["maxProperties"] == 8
    assert published["quorum"]["exclusiveMaximum"] == 1
    assert published["tags"]["maxItems"] == 3
    assert set(published) == set(POLL.input_schema["properties"])


async def test_every_capped_argument_of_a_users_app_is_sent_past_its_cap_and_refused_naming_it(core: Core) -> None:
    planned = {argument: plan_over_cap(tool, argument, prop, {}) for tool, argument, prop in _poll_arguments(core)}
    assert [value for value in planned.values() if isinstance(value, Unplanned)] == []
    assert len(planned["options"]) == 9
    assert len(planned["weights"]) == 9
    assert planned["quorum"] == 1
    assert len(planned["tags"]) == 4
    for argument, value in planned.items():
        result = await core.runtime.call(POLL.name, {argument: value}, ME)
        assert result["_meta"]["error"]["code"] == "invalid_arguments", (argument, result)
        assert argument in result["_meta"]["error"]["fields"], (argument, result["_meta"]["error"]["fields"])


@pytest.mark.parametrize("argument", ["options", "weights", "tags"])
def test_an_over_cap_list_or_dict_is_made_of_items_its_schema_admits(argument: str) -> None:
    prop = POLL.input_schema["properties"][argument]
    value = plan_over_cap(POLL.name, argument, prop, {})
    shrunk = (
        value[: prop["maxItems"]] if isinstance(value, list) else dict(list(value.items())[: prop["maxProperties"]])
    )
    assert [error.message for error in Draft202012Validator(prop).iter_errors(shrunk)] == []
    assert list(Draft202012Validator(prop).iter_errors(value)) != []


def test_a_value_fitting_the_whole_input_schema_is_a_call_the_input_model_takes() -> None:
    arguments = fitting(POLL.input_schema)
    assert [error.message for error in Draft202012Validator(POLL.input_schema).iter_errors(arguments)] == []
    POLL.input_model.model_validate(arguments)


def test_an_object_no_schema_caps_is_planned_as_the_declaration_to_add_not_a_crash() -> None:
    prop = LOOSE.input_schema["properties"]["settings"]
    value = plan_over_cap(LOOSE.name, "settings", prop, {})
    assert isinstance(value, Unplanned)
    assert value.message.startswith("loose_configure.settings (object) has no cap a test can read from its schema")
    assert "Field(max_length=…) on a dict (maxProperties)" in value.message
    assert "VALIDATOR_CAPS (tests/functional/test_request_limits.py) under ('loose_configure', 'settings')" in (
        value.message
    )
    listed = {"settings": "an over-cap value"}
    assert plan_over_cap(LOOSE.name, "settings", prop, {(LOOSE.name, "settings"): listed}) is listed
