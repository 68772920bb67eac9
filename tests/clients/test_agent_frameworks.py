"""What an agent framework's model reads of our results (agent_specs.py): each framework calls a tool through its
own MCP layer and agent loop for a scripted model, and the test checks what that model was handed. The expected
state and error sentences come from the official Python SDK's client (the reference) making the same calls, and
the calls from the registry's declarations (client_plan.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from agent_specs import AGENT_IDS, AGENTS, OFFERS_APP_ONLY, UNREAD_ERRORS
from client_driver import Driver, running
from client_plan import (
    SPECS,
    chat_answer,
    example_arguments,
    form_tools,
    id_fields,
    identity_probe,
    invalid_arguments,
    readers_of,
    shown_again_by,
)
from client_session import ClientSession
from client_specs import ClientSpec
from served_tools import SERVED_TOOLS, needs_identity
from widget_mcp.apps.forms.answer_keys import ANSWER_KEY_META
from widget_mcp.apps.forms.chat_fallback import RECORD_TOOL

APP_ONLY = [tool for tool in SERVED_TOOLS if SPECS[tool].visibility == "private"]
# A call that needs nothing made first and changes nothing: each framework's model makes it to show what it is offered.
PROBE = next(
    tool
    for tool in SERVED_TOOLS
    if tool not in APP_ONLY and SPECS[tool].read_only and not id_fields(tool) and not needs_identity(tool)
)
FORM_TOOLS = form_tools()
# Invalid arguments to an app-only tool are refused as `app_only` first (test_..._app_only_tool_...).
INVALID_CALLS = [
    tool
    for tool in SERVED_TOOLS
    if invalid_arguments(tool) is not None and tool not in APP_ONLY and not needs_identity(tool)
]
# The frameworks' tool layers send no user identity: a tool that needs one (declared) answers them identity_required,
# whose sentence their models must read instead (the tests above call only the others).
IDENTITY_TOOLS = [tool for tool in SERVED_TOOLS if tool not in APP_ONLY and SPECS[tool].needs_identity]


class Agent:
    """One framework's driver: `run` makes its model call one tool and returns what the model was handed."""

    def __init__(self, driver: Driver, spec: ClientSpec) -> None:
        self.driver, self.spec = driver, spec
        connected = driver.ask("connect")
        assert connected["ok"], f"{spec.name} could not connect: {connected['error']}"
        assert connected["version"] == spec.version, f"{spec.library}: the driver loaded {connected['version']}"

    @property
    def elicits(self) -> bool:
        return bool(self.spec.answers_input)

    def unread(self, code: str, arguments: dict[str, Any] | None = None) -> bool:
        """Whether this framework's model is known not to read `code`'s sentence (agent_specs.UNREAD_ERRORS), in a
        call made with `arguments`."""
        unread = UNREAD_ERRORS.get(self.spec.key, {})
        return code in unread or (arguments == {} and f"{code} (none given)" in unread)

    def run(self, tool: str, arguments: dict[str, Any], answer: dict[str, Any] | None = None) -> Seen:
        given = {"answer": answer} if answer is not None else {}
        answer = self.driver.ask("run", tool=tool, arguments=arguments, **given)
        assert answer["ok"], f"{self.spec.name}: {tool}({arguments}) threw {answer['error']}"
        assert answer["turns"] == 2, f"{self.spec.name}: the model was asked {answer['turns']} times, not twice"
        where = f"{self.spec.name}: {tool}({json.dumps(arguments)[:200]})"
        return Seen(where, answer["offered"], answer["seen"], answer.get("asked") or [])


class Seen:
    """The tools a model was offered and what it was handed as the tool's output, in the framework's own shape."""

    def __init__(self, where: str, offered: list[str], seen: list[Any], asked: list[dict[str, Any]]) -> None:
        self.where, self.offered, self.seen, self.asked = where, offered, seen, asked
        assert len(seen) == 1, f"{where}: the model was handed {len(seen)} tool outputs: {seen}"

    @property
    def texts(self) -> list[str]:
        return list(_strings(self.seen))

    @property
    def text(self) -> str:
        return "\n".join(self.texts)

    @property
    def objects(self) -> list[dict[str, Any]]:
        """Every JSON object the model can read: given as one, or serialized in a text."""
        return list(_objects(self.seen))

    def has_state(self, **fields: Any) -> bool:
        return any(all(obj.get(k) == v for k, v in fields.items()) for obj in self.objects)


def _strings(value: Any) -> Iterator[str]:
    """Every string the model reads, including those in JSON a framework serialized (pydantic-ai: a list of texts)."""
    if isinstance(value, str):
        yield value
        if value[:1] in "{[":
            try:
                yield from _strings(json.loads(value))
            except ValueError:
                return
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _objects(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _objects(item)
    elif isinstance(value, list):
        for item in value:
            yield from _objects(item)
    elif isinstance(value, str) and value[:1] in "{[":
        try:
            yield from _objects(json.loads(value))
        except ValueError:
            return


@pytest.fixture(scope="session", params=AGENTS, ids=AGENT_IDS)
def agent(request: pytest.FixtureRequest, mcp_url: str) -> Iterator[Agent]:
    spec: ClientSpec = request.param
    with running(spec, mcp_url) as driver:
        yield Agent(driver, spec)
        driver.ask("close")


def test_each_agents_model_is_offered_every_tool_a_model_may_call_and_no_app_only_tool_where_known(
    agent: Agent,
) -> None:
    seen = agent.run(PROBE, example_arguments(PROBE))
    for_models = {tool for tool in SERVED_TOOLS if tool not in APP_ONLY}
    assert for_models <= set(seen.offered), f"{seen.where}: offered {seen.offered}"
    assert set(seen.offered) <= set(SERVED_TOOLS), f"{seen.where}: offered {seen.offered}"
    # None of these frameworks shows widgets: where the server can tell, their model is offered no app-only tool.
    offered = sorted(set(seen.offered) & set(APP_ONLY))
    expected = APP_ONLY if agent.spec.key in OFFERS_APP_ONLY else []
    assert offered == sorted(expected), f"{seen.where}: offered app-only {offered}, expected {expected}"


@pytest.mark.parametrize("tool", APP_ONLY)
def test_each_agents_model_that_calls_an_app_only_tool_is_refused_with_the_app_only_sentence(
    agent: Agent, reference: ClientSession, tool: str
) -> None:
    arguments = example_arguments(tool)
    sentence = reference.fails(tool, arguments, "app_only").narration
    if tool not in agent.run(PROBE, example_arguments(PROBE)).offered:
        return  # its model cannot call it (some frameworks refuse the call, others throw)
    seen = agent.run(tool, arguments)
    assert sentence in seen.texts, f"{seen.where}: the model read {seen.seen}, not {sentence!r}"


def test_each_agents_model_reads_the_fen_and_the_ply_after_a_new_game_and_a_move(
    agent: Agent, reference: ClientSession
) -> None:
    started = reference.succeeds("chess_new_game", {}).structured
    moved = reference.succeeds("chess_move", {"gameId": started["gameId"], "move": "e4", "expectedPly": 0}).structured

    new = agent.run("chess_new_game", {})
    assert new.has_state(fen=started["fen"], ply=0), f"{new.where}: the model read {new.seen}"
    game = next(obj["gameId"] for obj in new.objects if "gameId" in obj)
    move = agent.run("chess_move", {"gameId": game, "move": "e4", "expectedPly": 0})
    assert move.has_state(gameId=game, fen=moved["fen"], ply=1), f"{move.where}: the model read {move.seen}"


def _refusals(game: str) -> list[tuple[str, dict[str, Any], str]]:
    """The chess refusals, after 1. e4 in `game`: (tool, arguments, error code)."""
    return [
        ("chess_move", {"gameId": game, "move": "Ke3"}, "illegal_move"),
        ("chess_move", {"gameId": game, "move": "e5", "expectedPly": 0}, "conflict"),
        ("chess_show_game", {"gameId": f"{game}x"}, "game_not_found"),
    ]


def test_each_agents_model_reads_each_chess_refusals_sentence(agent: Agent, reference: ClientSession) -> None:
    theirs = reference.succeeds("chess_new_game", {}).structured["gameId"]
    reference.succeeds("chess_move", {"gameId": theirs, "move": "e4", "expectedPly": 0})
    new = agent.run("chess_new_game", {})
    game = next(obj["gameId"] for obj in new.objects if "gameId" in obj)
    agent.run("chess_move", {"gameId": game, "move": "e4", "expectedPly": 0})
    for (tool, arguments, code), (_, ours, _) in zip(_refusals(theirs), _refusals(game), strict=True):
        sentence = reference.fails(tool, arguments, code).narration.replace(theirs, game)
        seen = agent.run(tool, ours)
        read = sentence in seen.texts
        assert read != agent.unread(code), f"{seen.where}: {code}'s sentence {sentence!r} read: {read}; {seen.seen}"
        if code == "conflict":
            # The game as it now stands, after the sentence: the model can retry with the right ply.
            assert seen.has_state(gameId=game, ply=1), f"{seen.where}: the model read {seen.seen}"


@pytest.mark.parametrize("tool", INVALID_CALLS)
def test_each_agents_model_reads_the_invalid_arguments_sentence(
    agent: Agent, reference: ClientSession, tool: str
) -> None:
    invalid = invalid_arguments(tool)
    assert invalid is not None
    sentence = reference.fails(tool, invalid, "invalid_arguments").narration
    seen = agent.run(tool, invalid)
    assert tool in seen.offered, f"{seen.where}: a tool for models was not offered"
    read = sentence in seen.text
    unread = agent.unread("invalid_arguments", invalid)
    assert read != unread, f"{seen.where}: {sentence!r} read: {read}; {seen.seen}"


def test_each_agents_model_reads_why_a_tool_that_needs_an_identified_user_refuses_it(
    agent: Agent, reference: ClientSession
) -> None:
    # One test over every such tool (none in the reference apps; docs/shared-state.md's apps declare them).
    for tool in IDENTITY_TOOLS:
        arguments = identity_probe(tool)
        sentence = reference.fails(tool, arguments, "identity_required", identified=False).narration
        seen = agent.run(tool, arguments)
        read = sentence in seen.text
        unread = agent.unread("identity_required", arguments)
        assert read != unread, f"{seen.where}: {sentence!r} read: {read}; {seen.seen}"


def test_the_registry_declares_a_tool_that_asks_a_form() -> None:
    assert FORM_TOOLS, "no tool makes the forms RECORD_TOOL records: the form tests below check nothing"


@pytest.mark.parametrize("tool", FORM_TOOLS)
def test_each_eliciting_agents_model_reads_the_users_answer_to_the_form(agent: Agent, tool: str) -> None:
    if not agent.elicits:
        pytest.skip(f"{agent.spec.name} shows no forms of its own (its model's view: the next test)")
    arguments = example_arguments(tool)
    answer = chat_answer(arguments["question"])
    seen = agent.run(tool, arguments, {"action": "accept", "content": answer})
    assert [asked["requestedSchema"] for asked in seen.asked] == [arguments["question"]], seen.asked
    assert seen.has_state(type="dgui_response", data=answer), f"{seen.where}: the model read {seen.seen}"


@pytest.mark.parametrize("tool", FORM_TOOLS)
def test_each_agents_model_reads_the_forms_question_and_each_field_and_no_answer(agent: Agent, tool: str) -> None:
    arguments = example_arguments(tool)
    form = arguments["question"]
    # An eliciting framework's user declines: the model is told the form and that nobody answered it.
    seen = agent.run(tool, arguments, {"action": "decline"} if agent.elicits else None)
    assert not any(obj.get("type") == "dgui_response" for obj in seen.objects), f"{seen.where}: {seen.seen}"
    if agent.elicits:
        # The user saw the form in the framework's own dialog; the model reads that it was declined.
        assert seen.has_state(type="dgui_pending", action="decline"), f"{seen.where}: {seen.seen}"
        return
    assert arguments["title"] in seen.text, f"{seen.where}: the model read {seen.seen}"
    for field, schema in form["properties"].items():
        assert field in seen.text, f"{seen.where}: the model never read the field {field!r}: {seen.seen}"
        assert schema["title"] in seen.text, f"{seen.where}: the model never read {schema['title']!r}: {seen.seen}"
    # Unanswered, the form is never handed over as an answer.
    assert not any(obj.get("type") == "dgui_response" for obj in seen.objects), f"{seen.where}: {seen.seen}"


@pytest.mark.parametrize("tool", FORM_TOOLS)
def test_each_agents_model_that_cannot_be_shown_the_form_is_told_so_and_records_the_users_chat_answer(
    agent: Agent, tool: str
) -> None:
    if agent.elicits:
        pytest.skip(f"{agent.spec.name} asks its user natively (test_each_eliciting_agents_model_reads_...)")
    arguments = example_arguments(tool)
    form = arguments["question"]
    seen = agent.run(tool, arguments)
    assert "cannot show forms" in seen.text, f"{seen.where}: {seen.seen}"
    assert RECORD_TOOL in seen.text, f"{seen.where}: {seen.seen}"
    form_id = next(obj["formId"] for obj in seen.objects if obj.get("type") == "dgui_form")
    assert form_id in seen.text, f"{seen.where}: the model was not told which form to record: {seen.seen}"
    # The user's answer, as the model heard it in chat.
    answer = chat_answer(form)
    recorded = agent.run(RECORD_TOOL, {"formId": form_id, "data": answer})
    assert recorded.has_state(type="dgui_response", data=answer), f"{recorded.where}: the model read {recorded.seen}"


@pytest.mark.parametrize("tool", FORM_TOOLS)
def test_no_agents_model_ever_reads_a_forms_answer_key(agent: Agent, tool: str) -> None:
    seen = agent.run(tool, example_arguments(tool), {"action": "decline"} if agent.elicits else None)
    form_id = next((obj["formId"] for obj in seen.objects if "formId" in obj), None)
    # Read back, and shown again (a fresh key for its widget): neither hands the model a key.
    again = [*readers_of(tool), *shown_again_by(tool)]
    shown = [agent.run(other, {"formId": form_id}) for other in again] if form_id else []
    assert shown or not form_id, f"no tool reads back {tool}'s form: this test checks only {tool}'s own result"
    for what in (seen, *shown):
        assert not any(ANSWER_KEY_META in obj for obj in what.objects), f"{what.where}: the model read {what.seen}"
        assert ANSWER_KEY_META not in what.text, f"{what.where}: the model read {what.seen}"
