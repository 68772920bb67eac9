"""The form widget draws what the server accepts: a form exactly at the server's bound on checking the values of one
level of an answer (FORMS_MAX_VALUE_STEPS, as `make dev` runs it), at its top level and at its fields', is asked
through the server, drawn, answered and stored; one step more is refused by the server before anything is stored.
A form the server accepts whose drawing would still go past the widget's bound (several levels, each near the
server's) is not drawn: the widget says to answer in the conversation and tells the model so, and the result still
carries the form for the model to ask.

The server says in each form's result which bound it runs (`_meta.dgui_limits.valueSteps`): a server started with
it raised has the widget draw forms the default bound leaves to the conversation, and a bound past the widget's own
ceiling (MAX_LEVEL_STEPS in complexity.ts) is taken as the ceiling."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from browser_support import CHATGPT, ROOT, DevServer, click_in_widget, widget
from ext_apps_host_support import ext_apps_host, open_in_host
from jsonschema import Draft202012Validator
from playwright.sync_api import Page, expect
from widget_mcp.apps.forms.domain.complexity import read_schema
from widget_mcp.apps.forms.domain.errors import TooComplex
from widget_mcp.apps.forms.domain.limits import FormLimits
from widget_mcp.apps.forms.domain.schema import check_form_schema
from widget_mcp.local.process import local_server
from widget_mcp.settings import Settings

# What the local server runs with (the browser layer's server takes the settings' defaults).
VALUE_STEPS: int = Settings.model_fields["forms_max_value_steps"].default
CHECK_STEPS: int = Settings.model_fields["forms_max_check_steps"].default
LEVELS = 10  # $defs levels, each an allOf of two $refs to the next: a field at level k costs about 6 * 2^(10-k)
PARTS = 6  # levels of such a form: the server accepts each, the widget would draw six chains
KEYWORDS = frozenset(Draft202012Validator.VALIDATORS)  # the dialect a schema without $schema is read in
BOUND_MS = 30_000  # RJSF expands every $ref of such a form to draw it: seconds on a loaded machine
# A deployment's raised bound (within the default FORMS_MAX_CHECK_STEPS), and the most the widget takes from any.
RAISED_STEPS = 4 * VALUE_STEPS


def widget_ceiling() -> int:
    """The widget's own ceiling on a server's bound, as complexity.ts declares it."""
    source = (ROOT / "widget_bundles" / "src" / "form" / "complexity.ts").read_text()
    found = re.search(r"export const MAX_LEVEL_STEPS = ([\d_]+);", source)
    assert found, "complexity.ts declares no MAX_LEVEL_STEPS"
    return int(found[1])


WIDGET_CEILING = widget_ceiling()
BRIDGES = ["mcp-apps", "openai"]  # the bound reaches the widget through either bridge


def chain_defs(prefix: str, leaf: dict[str, Any]) -> dict[str, Any]:
    defs: dict[str, Any] = {
        f"{prefix}{k}": {"allOf": [{"$ref": f"#/$defs/{prefix}{k + 1}"}, {"$ref": f"#/$defs/{prefix}{k + 1}"}]}
        for k in range(LEVELS)
    }
    defs[f"{prefix}{LEVELS}"] = leaf
    return defs


def accepted(schema: dict[str, Any], value_steps: int) -> bool:
    """Whether the server's whole check of a form's schema passes it under `value_steps`."""
    try:
        check_form_schema(schema, FormLimits(CHECK_STEPS, value_steps))
    except TooComplex:
        return False
    return True


def cost(schema: dict[str, Any]) -> int:
    """The fewest value steps the server's reading of `schema` passes (its cost at its costliest level)."""
    low, high = 1, 4 * WIDGET_CEILING
    while low < high:
        middle = (low + high) // 2
        try:
            read_schema(schema, KEYWORDS, middle)
            high = middle
        except TooComplex:
            low = middle + 1
    return low


def top_level(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with its fields made plain: what it costs is its top level's."""
    return {**schema, "properties": {name: {"type": "string"} for name in schema["properties"]}}


def form_at_the_bound(steps: int) -> dict[str, Any]:
    """A form whose top level and fields' level each cost the server exactly `steps` (every field a string): fields
    that each apply a chain of levels, the costliest that still fit, as many of each as fit (`chain0`, `chain0_1`,
    …), then plain text fields, one step each; and the same chains of the whole form under `allOf`, then `true`s,
    one step each."""
    defs = {**chain_defs("d", {"type": "string"}), **chain_defs("r", {"type": "object"})}
    schema: dict[str, Any] = {"type": "object", "$defs": defs, "properties": {}, "allOf": [True]}
    fields, whole = schema["properties"], schema["allOf"]
    for level in range(LEVELS + 1):
        for copy in range(steps):
            name = f"chain{level}" + (f"_{copy}" if copy else "")
            fields[name] = {"title": f"Chain {level}", "$ref": f"#/$defs/d{level}"}
            if cost(schema) > steps:
                del fields[name]
                break
    for index in range(steps - cost(schema)):
        fields[f"text{index}"] = {"type": "string", "title": f"Text {index}"}
    for level in range(LEVELS + 1):
        while cost(top_level(schema)) <= steps:
            whole.append({"$ref": f"#/$defs/r{level}"})
        whole.pop()
    whole.extend([True] * (steps - cost(top_level(schema))))
    return schema


def form_over_several_levels(levels: int) -> dict[str, Any]:
    """A form whose every level (an object field inside the one above) holds the costliest chain the server accepts
    on one level: within the server's bound at each, past the widget's in all."""
    defs = chain_defs("d", {"type": "string"})
    for level in range(levels):
        more = {"$ref": f"#/$defs/part{level + 1}"} if level + 1 < levels else {"type": "string"}
        defs[f"part{level}"] = {
            "type": "object",
            "title": f"Part {level}",
            "properties": {"answer": {"title": "Answer", "$ref": "#/$defs/d0"}, "more": more},
        }
    return {"type": "object", "$defs": defs, "properties": {"part": {"$ref": "#/$defs/part0"}}}


def form_result(schema: dict[str, Any], value_steps: object) -> dict[str, Any]:
    """ask_question's result for `schema` from a server that says it runs `value_steps`."""
    form = {"type": "dgui_form", "formId": "bound", "title": "Bound", "description": "", "schema": schema}
    return {
        "content": [{"type": "text", "text": "A form to fill in."}],
        "structuredContent": {**form, "uiSchema": {}, "metadata": {"version": "0.1"}},
        "_meta": {"dgui_limits": {"valueSteps": value_steps}},
        "isError": False,
    }


def assert_left_to_the_conversation(page: Page) -> None:
    frame = widget(page)
    message = frame.locator('[data-testid="form-message"]')
    expect(message).to_have_attribute("data-code", "too_complex", timeout=BOUND_MS)
    expect(frame.locator("form")).to_have_count(0)


@pytest.fixture(scope="module")
def raised_server() -> Iterator[DevServer]:
    """`make dev` as a deployer who raised FORMS_MAX_VALUE_STEPS runs it."""
    with local_server("browser-raised-bound", settings={"FORMS_MAX_VALUE_STEPS": str(RAISED_STEPS)}) as server:
        yield DevServer(server.base)


def test_a_form_exactly_at_the_servers_step_bound_is_drawn_answered_and_stored(
    page: Page, dev_server: DevServer
) -> None:
    schema = form_at_the_bound(VALUE_STEPS)
    # Accepted at the bound, refused one step under it, at the top level and at the fields'.
    assert cost(schema) == cost(top_level(schema)) == VALUE_STEPS
    assert accepted(schema, VALUE_STEPS)
    assert not accepted(schema, VALUE_STEPS - 1)
    assert not accepted(top_level(schema), VALUE_STEPS - 1)
    over = form_at_the_bound(VALUE_STEPS + 1)
    refused = dev_server.call_tool("ask_question", {"question": over, "title": "One step over"})
    assert refused["isError"] is True
    assert refused["_meta"]["error"]["code"] == "too_complex"

    page.goto(dev_server.playground("ask_question", {"question": schema, "title": "At the bound"}))
    frame = widget(page)
    form = frame.locator(".wm-form")
    expect(form).to_have_attribute("data-state", "ready", timeout=BOUND_MS)
    expect(frame.locator("#root_chain0")).to_be_visible(timeout=BOUND_MS)
    expect(frame.locator('[data-testid="form-message"]')).to_have_count(0)
    frame.locator("#root_chain0").fill("drawn")
    click_in_widget(page, frame.locator("button[type=submit]"))
    expect(frame.locator('[data-testid="form-sent"]')).to_be_visible(timeout=BOUND_MS)

    form_id = form.get_attribute("data-form-id")
    stored = dev_server.call_tool("get_form_response", {"formId": form_id})["structuredContent"]
    assert stored["type"] == "dgui_response"
    assert stored["data"]["chain0"] == "drawn"


def test_a_form_the_server_accepts_but_too_large_to_draw_is_left_to_the_conversation(
    page: Page, dev_server: DevServer
) -> None:
    schema = form_over_several_levels(PARTS)
    assert cost(schema) <= VALUE_STEPS
    args = {"question": schema, "title": "Nested parts"}
    asked = dev_server.call_tool("ask_question", args)
    assert asked["isError"] is False
    # What a host without the widget shows, and what the model reads: the form is there to be asked in prose.
    assert "Nested parts" in asked["content"][0]["text"]
    assert asked["structuredContent"]["schema"]["$defs"]["part0"]["title"] == "Part 0"

    page.goto(dev_server.playground("ask_question", args))
    frame = widget(page)
    message = frame.locator('[data-testid="form-message"]')
    expect(message).to_have_attribute("data-code", "too_complex", timeout=BOUND_MS)
    expect(message).to_have_text(
        "This form is too complex to show here: answer its questions in the conversation instead."
    )
    expect(frame.locator("form")).to_have_count(0)
    form_id = frame.locator(".wm-form").get_attribute("data-form-id")
    told = page.locator('[data-testid="model-context"] [data-source="ui/update-model-context"]')
    expect(told).to_have_text(
        f'Form {form_id} "Nested parts" is too complex for the widget to show: nothing was drawn or answered there. '
        "Ask the user its questions in the conversation."
    )
    pending = dev_server.call_tool("get_form_response", {"formId": form_id})["structuredContent"]
    assert pending["type"] == "dgui_pending"


@pytest.mark.parametrize("host", [{"host": "mcp-apps"}, {"host": "chatgpt", "bridge": "openai"}], ids=BRIDGES)
def test_a_server_with_a_raised_step_bound_has_the_widget_draw_forms_the_default_bound_would_not(
    page: Page, dev_server: DevServer, raised_server: DevServer, host: dict[str, str]
) -> None:
    schema = form_at_the_bound(RAISED_STEPS)
    assert cost(schema) == cost(top_level(schema)) == RAISED_STEPS
    args = {"question": schema, "title": "Raised bound"}
    # The default bound refuses it on the server, and in the widget for a result that does not say its bound.
    assert dev_server.call_tool("ask_question", args)["_meta"]["error"]["code"] == "too_complex"
    asked = raised_server.call_tool("ask_question", args)
    assert asked["isError"] is False
    assert asked["_meta"]["dgui_limits"] == {"valueSteps": RAISED_STEPS}
    unsaid = {**asked, "_meta": {k: v for k, v in asked["_meta"].items() if k != "dgui_limits"}}
    page.goto(raised_server.preview("form", unsaid, **host))
    assert_left_to_the_conversation(page)

    page.goto(raised_server.playground("ask_question", args, **host))
    frame = widget(page)
    form = frame.locator(".wm-form")
    expect(form).to_have_attribute("data-state", "ready", timeout=BOUND_MS)
    expect(frame.locator("#root_chain0_1")).to_be_visible(timeout=BOUND_MS)
    expect(frame.locator('[data-testid="form-message"]')).to_have_count(0)
    frame.locator("#root_chain0_1").fill("drawn")
    click_in_widget(page, frame.locator("button[type=submit]"))
    expect(frame.locator('[data-testid="form-sent"]')).to_be_visible(timeout=BOUND_MS)

    form_id = form.get_attribute("data-form-id")
    as_caller = CHATGPT if host["host"] == "chatgpt" else None
    stored = raised_server.call_tool("get_form_response", {"formId": form_id}, as_caller)["structuredContent"]
    assert stored["data"]["chain0_1"] == "drawn"


def test_a_bound_past_the_widgets_ceiling_draws_only_what_the_ceiling_allows(page: Page, dev_server: DevServer) -> None:
    absurd = 10**12
    # A form at the ceiling is drawn (the bound was not taken as the default's), one at twice the ceiling is not.
    page.goto(dev_server.preview("form", form_result(form_at_the_bound(WIDGET_CEILING), absurd)))
    frame = widget(page)
    expect(frame.locator("#root_chain0")).to_be_visible(timeout=BOUND_MS)
    expect(frame.locator('[data-testid="form-message"]')).to_have_count(0)

    page.goto(dev_server.preview("form", form_result(form_at_the_bound(2 * WIDGET_CEILING), absurd)))
    assert_left_to_the_conversation(page)


def test_a_bound_that_is_not_a_whole_number_is_read_as_the_default(page: Page, dev_server: DevServer) -> None:
    schema = form_at_the_bound(RAISED_STEPS)
    for value_steps in (str(RAISED_STEPS), RAISED_STEPS + 0.5, None, [RAISED_STEPS]):
        page.goto(dev_server.preview("form", form_result(schema, value_steps)))
        assert_left_to_the_conversation(page)
    page.goto(dev_server.preview("form", form_result(schema, RAISED_STEPS)))
    expect(widget(page).locator("#root_chain0_1")).to_be_visible(timeout=BOUND_MS)


def test_a_next_step_at_a_raised_step_bound_is_drawn_after_the_first(page: Page, raised_server: DevServer) -> None:
    first = {"type": "object", "properties": {"name": {"type": "string", "title": "Name"}}}
    next_step = {"title": "At the raised bound", "schema": form_at_the_bound(RAISED_STEPS)}
    page.goto(raised_server.playground("ask_question", {"question": first, "metadata": {"next": next_step}}))
    frame = widget(page)
    expect(frame.locator(".wm-form")).to_have_attribute("data-state", "ready", timeout=BOUND_MS)
    frame.locator("#root_name").fill("first")
    click_in_widget(page, frame.locator("button[type=submit]"))

    expect(frame.locator(".wm-form")).to_have_attribute("data-step", "1", timeout=BOUND_MS)
    expect(frame.locator("#root_chain0_1")).to_be_visible(timeout=BOUND_MS)
    expect(frame.locator('[data-testid="form-message"]')).to_have_count(0)


def test_in_the_official_appbridge_host_with_no_identity_the_widget_draws_to_the_raised_bound(page: Page) -> None:
    """The bound travels in the result's `_meta`, which a host must pass to the view as it is: the reference host
    of @modelcontextprotocol/ext-apps does, and the form the default bound would leave to the conversation is drawn."""
    args = {"question": form_at_the_bound(RAISED_STEPS), "title": "Raised bound"}
    with ext_apps_host("ext-apps-raised-bound", {"FORMS_MAX_VALUE_STEPS": str(RAISED_STEPS)}) as host:
        view = open_in_host(page, host, "ask_question", args, "legacy")
        expect(view.locator(".wm-form")).to_have_attribute("data-state", "ready", timeout=BOUND_MS)
        expect(view.locator("#root_chain0_1")).to_be_visible(timeout=BOUND_MS)
        expect(view.locator('[data-testid="form-message"]')).to_have_count(0)
