"""The TypeScript agent frameworks (agent_specs_ts.py), each through its own MCP client, tool wrapper and agent loop,
with a scripted model, against `make dev`'s server: what their model is offered, and what it reads after a chess
game's first moves, after each refusal a tool can give, and on a form. What the model should read is taken from a
reference client (the Python SDK) calling the same server, and the calls from the tools' declarations."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from agent_specs_ts import AGENT_IDS, AGENTS, AgentSpec, model_text, stated_string, states
from client_driver import Driver, running
from client_plan import (
    chat_answer,
    example_arguments,
    form_tools,
    id_fields,
    identity_probe,
    invalid_arguments,
    readers_of,
    shown_again_by,
    unknown_id,
)
from client_session import ClientSession
from served_tools import SERVED_SPECS, SERVED_TOOLS, USER_TOOLS, needs_identity
from widget_mcp.apps.forms.answer_keys import ANSWER_KEY_META
from widget_mcp.apps.forms.chat_fallback import RECORD_TOOL

# Each speaks 2026-07-28, so the server knows whether it declared the MCP Apps extension: app-only tools are offered
# to the model of a framework that did (AgentSpec.declares_apps), never to another.
APP_ONLY = [tool for tool in SERVED_TOOLS if tool not in USER_TOOLS]
# The frameworks' tool layers send no user identity: a tool that needs one (declared, itself or through the makers of
# its ids) answers them identity_required, whose sentence their models must read instead of the ones below.
ANONYMOUS = [tool for tool in USER_TOOLS if not needs_identity(tool)]
IDENTITY_TOOLS = [tool for tool in USER_TOOLS if SERVED_SPECS[tool].needs_identity]
INVALID_CALLS = [tool for tool in ANONYMOUS if invalid_arguments(tool) is not None]
ID_CALLS = [(tool, field) for tool in ANONYMOUS for field in id_fields(tool)]
FORM_TOOLS = form_tools()


class Agent:
    """One framework's driver, connected: `run(tool, arguments)` plays one turn in which the model calls the tool,
    and returns what the model was handed, as text."""

    def __init__(self, spec: AgentSpec, driver: Driver) -> None:
        self.spec, self.driver = spec, driver
        self.name = spec.client.name
        self.connected = driver.ask("connect")
        assert self.connected["ok"], f"{self.name} could not connect: {self.connected['error']}"

    def offered(self) -> list[str]:
        answer = self.driver.ask("offered")
        assert answer["ok"], f"{self.name}: {answer['error']}"
        return [name.removeprefix(self.spec.prefix) for name in answer["tools"]]

    def run(self, tool: str, arguments: dict[str, Any]) -> str:
        answer = self.driver.ask("run_tool", name=tool, arguments=arguments)
        assert answer["ok"], f"{self.name}: the agent's turn calling {tool}({arguments}) threw {answer['error']}"
        return model_text(answer["seen"])


@pytest.fixture(scope="session", params=AGENTS, ids=AGENT_IDS)
def agent(request: pytest.FixtureRequest, mcp_url: str) -> Iterator[Agent]:
    spec: AgentSpec = request.param
    with running(spec.client, mcp_url) as driver:
        yield Agent(spec, driver)
        driver.ask("close")


def test_each_agent_framework_loads_its_locked_version_and_speaks_the_revision_it_is_listed_with(agent: Agent) -> None:
    assert agent.connected["version"] == agent.spec.client.version, agent.connected
    assert agent.connected["protocolVersion"] in agent.spec.client.eras, agent.connected


def test_each_agent_frameworks_model_is_offered_every_tool_a_user_may_call_and_no_app_only_tool(agent: Agent) -> None:
    offered = agent.offered()
    assert set(USER_TOOLS) <= set(offered), f"{agent.name} hides {sorted(set(USER_TOOLS) - set(offered))}"
    assert APP_ONLY, "the registry declares no app-only tool: this test checks nothing"
    expected = set(SERVED_TOOLS) if agent.spec.declares_apps else set(USER_TOOLS)
    assert set(offered) == expected, f"{agent.name} offers {sorted(offered)}, not {sorted(expected)}"


def test_each_agent_frameworks_model_reads_the_fen_and_the_ply_after_a_new_game_and_after_a_move(
    agent: Agent, reference: ClientSession
) -> None:
    started = agent.run("chess_new_game", example_arguments("chess_new_game"))
    game = stated_string(started, "gameId")
    assert game, f"{agent.name}: the model was handed no gameId: {started}"
    shown = reference.succeeds("chess_show_game", {"gameId": game}).structured
    assert shown["fen"] in started, f"{agent.name}: the model was not handed the FEN: {started}"
    assert states(started, "ply", shown["ply"]), f"{agent.name}: the model was not handed the ply: {started}"

    move = {**example_arguments("chess_move"), "gameId": game, "expectedPly": shown["ply"]}
    moved = agent.run("chess_move", move)
    now = reference.succeeds("chess_show_game", {"gameId": game}).structured
    assert now["ply"] == shown["ply"] + 1, f"{agent.name}: the move did not land: {moved}"
    assert now["fen"] in moved, f"{agent.name}: the model was not handed the new FEN: {moved}"
    assert states(moved, "ply", now["ply"]), f"{agent.name}: the model was not handed the new ply: {moved}"


def test_each_agent_frameworks_model_reads_the_sentence_of_an_illegal_move_and_of_a_stale_ply(
    agent: Agent, reference: ClientSession
) -> None:
    game = reference.succeeds("chess_new_game", example_arguments("chess_new_game")).structured["gameId"]
    legal = example_arguments("chess_move")
    reference.succeeds("chess_move", {**legal, "gameId": game, "expectedPly": 0})
    for arguments, code in (
        ({"gameId": game, "move": "Ke3"}, "illegal_move"),
        # Black's reply, legal now, but sent as if the game were still at ply 0.
        ({"gameId": game, "move": "e5", "expectedPly": 0}, "conflict"),
    ):
        sentence = reference.fails("chess_move", arguments, code).narration
        seen = agent.run("chess_move", arguments)
        assert sentence in seen, f"{agent.name}: {code}: the model read {seen!r}, not {sentence!r}"
    # The conflict's game as it now stands follows the sentence: the model can retry at the right ply.
    assert states(seen, "ply", 1), f"{agent.name}: conflict: the model was not handed the current ply: {seen!r}"


@pytest.mark.parametrize("tool", INVALID_CALLS)
def test_each_agent_frameworks_model_reads_why_invalid_arguments_are_refused(
    agent: Agent, reference: ClientSession, tool: str
) -> None:
    invalid = invalid_arguments(tool)
    assert invalid is not None
    refused = reference.fails(tool, invalid, "invalid_arguments")
    seen = agent.run(tool, invalid)
    if not agent.spec.checks_arguments:
        assert refused.narration in seen, f"{agent.name}: the model read {seen!r}, not {refused.narration!r}"
        return
    # The framework refuses the call before the server sees it: its sentence must name what the server's does.
    named = list(refused.error.get("fields") or {}) or list(invalid)
    assert all(name in seen for name in named), f"{agent.name}: the model read {seen!r}, naming none of {named}"


@pytest.mark.parametrize(("tool", "field"), ID_CALLS, ids=[f"{tool}.{field}" for tool, field in ID_CALLS])
def test_each_agent_frameworks_model_reads_the_sentence_naming_an_unknown_id(
    agent: Agent, reference: ClientSession, tool: str, field: str
) -> None:
    arguments = reference.with_ids(tool, {**example_arguments(tool), field: unknown_id(tool, field)})
    sentence = reference.fails(tool, arguments).narration
    seen = agent.run(tool, arguments)
    assert sentence in seen, f"{agent.name}: the model read {seen!r}, not {sentence!r}"


def test_each_agent_frameworks_model_reads_why_a_tool_that_needs_an_identified_user_refuses_it(
    agent: Agent, reference: ClientSession
) -> None:
    # One test over every such tool (none in the reference apps; docs/shared-state.md's apps declare them).
    for tool in IDENTITY_TOOLS:
        arguments = identity_probe(tool)
        sentence = reference.fails(tool, arguments, "identity_required", identified=False).narration
        seen = agent.run(tool, arguments)
        assert sentence in seen, f"{agent.name}: the model read {seen!r}, not {sentence!r}"


def test_the_registry_declares_a_tool_that_asks_a_form() -> None:
    assert FORM_TOOLS, "no tool makes the forms RECORD_TOOL records: the form tests below check nothing"


@pytest.mark.parametrize("tool", FORM_TOOLS)
def test_each_agent_frameworks_model_reads_the_question_and_each_fields_name_and_no_answer(
    agent: Agent, tool: str
) -> None:
    arguments = example_arguments(tool)
    seen = agent.run(tool, arguments)
    asked = [arguments["title"]] if arguments.get("title") else []
    missing = [name for name in [*asked, *arguments["question"]["properties"]] if name not in seen]
    assert missing == [], f"{agent.name}: the model was not handed {missing}: {seen}"
    assert not states(seen, "type", "dgui_response"), f"{agent.name}: the model read an answer nobody gave: {seen}"
    assert SERVED_SPECS[tool].visibility != "private"


@pytest.mark.parametrize("tool", FORM_TOOLS)
def test_each_agent_frameworks_model_is_told_the_form_cannot_be_shown_and_records_the_users_chat_answer(
    agent: Agent, tool: str
) -> None:
    arguments = example_arguments(tool)
    seen = agent.run(tool, arguments)
    assert ANSWER_KEY_META not in seen, f"{agent.name}: the model read an answer key: {seen}"
    if agent.spec.declares_apps:
        # Told it shows widgets, the server shows the form there: the model reads that it is shown, not the fields.
        assert "cannot show forms" not in seen, f"{agent.name}: {seen}"
        return
    assert "cannot show forms" in seen, f"{agent.name}: the model was not told no form is shown: {seen}"
    assert RECORD_TOOL in seen, f"{agent.name}: the model was not told how to record the answer: {seen}"
    form_id = stated_string(seen, "formId")
    assert form_id, f"{agent.name}: the model was handed no formId: {seen}"
    answer = chat_answer(arguments["question"])
    recorded = agent.run(RECORD_TOOL, {"formId": form_id, "data": answer})
    assert states(recorded, "type", "dgui_response"), f"{agent.name}: the model read {recorded}"
    assert all(states(recorded, field, value) for field, value in answer.items()), f"{agent.name}: {recorded}"
    assert ANSWER_KEY_META not in recorded, f"{agent.name}: the model read an answer key: {recorded}"


@pytest.mark.parametrize("tool", FORM_TOOLS)
def test_each_agent_frameworks_model_reads_no_answer_key_when_a_form_is_read_back_or_shown_again(
    agent: Agent, tool: str
) -> None:
    form_id = stated_string(agent.run(tool, example_arguments(tool)), "formId")
    again = [*readers_of(tool), *shown_again_by(tool)]
    assert form_id, f"{agent.name}: the model was handed no formId"
    assert again, f"no tool reads back {tool}'s form: this test checks nothing"
    for other in again:
        seen = agent.run(other, {"formId": form_id})
        assert form_id in seen, f"{agent.name}: {other} did not answer about the form: {seen}"
        assert ANSWER_KEY_META not in seen, f"{agent.name}: the model read an answer key from {other}: {seen}"
