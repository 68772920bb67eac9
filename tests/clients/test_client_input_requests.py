"""The clients of the matrix that can play a host answering a tool's input requests (ClientSpec.answers_input),
against the server with RESUMABLE_STREAMS on. In 2025-11-25 the server's requests reach them on the call's stream,
which the server ends and they resume with GET and Last-Event-ID once they have POSTed their answers; in 2026-07-28
they arrive in an `input_required` result. Whether the host shows widgets or not, and whatever its user answers,
each tool's example call ends in a result that fits the tool's output schema (the TypeScript SDK v1 checks it in
callTool too); then each app's scenarios for such hosts (scenarios/<app>.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from client_plan import example_arguments
from client_scenarios import scenario, scenarios_with
from client_session import DECLINE, ClientSession
from served_tools import SERVED_TOOLS

WITHOUT_WIDGETS = scenarios_with("play_without_widgets")
WITH_WIDGETS = scenarios_with("play_with_widgets")
ANSWERED_LATE = scenarios_with("play_answered_late")
UNANSWERED = scenarios_with("play_unanswered")


@pytest.mark.parametrize("tool", SERVED_TOOLS)
def test_a_host_without_widgets_that_declines_every_form_gets_each_tools_example_call_as_a_result_that_fits(
    form_host: ClientSession, tool: str
) -> None:
    arguments = form_host.with_ids(tool, example_arguments(tool), DECLINE)
    refusal = form_host.refusal(tool)  # an app-only tool (this host shows no widget), a chat answer to its own form
    if refusal is not None:
        form_host.fails(tool, arguments, refusal, DECLINE)
        return
    form_host.succeeds(tool, arguments, DECLINE)


@pytest.mark.parametrize("tool", SERVED_TOOLS)
def test_a_host_with_widgets_that_declines_every_form_gets_each_tools_example_call_as_a_result_that_fits(
    widget_host: ClientSession, tool: str
) -> None:
    arguments = widget_host.with_ids(tool, example_arguments(tool), DECLINE)
    refusal = widget_host.refusal(tool)  # a chat answer to a form the widget shows
    if refusal is not None:
        widget_host.fails(tool, arguments, refusal, DECLINE)
        return
    widget_host.succeeds(tool, arguments, DECLINE)


@pytest.mark.parametrize("path", WITHOUT_WIDGETS, ids=[path.stem for path in WITHOUT_WIDGETS])
def test_a_host_without_widgets_plays_each_apps_scenario_with_its_own_forms(
    form_host: ClientSession, path: Path
) -> None:
    scenario(path).play_without_widgets(form_host)


@pytest.mark.parametrize("path", WITH_WIDGETS, ids=[path.stem for path in WITH_WIDGETS])
def test_a_host_with_widgets_plays_each_apps_scenario_with_the_widgets_although_it_could_elicit(
    widget_host: ClientSession, path: Path
) -> None:
    scenario(path).play_with_widgets(widget_host)


@pytest.mark.parametrize("path", ANSWERED_LATE, ids=[path.stem for path in ANSWERED_LATE])
def test_a_host_whose_user_answers_after_the_first_resumption_gets_the_result_on_a_later_one(
    resuming_form_host: ClientSession, path: Path
) -> None:
    scenario(path).play_answered_late(resuming_form_host)


@pytest.mark.parametrize("path", UNANSWERED, ids=[path.stem for path in UNANSWERED])
def test_a_host_that_fails_to_answer_gets_the_servers_sentence_and_its_client_resumes_no_more(
    resuming_form_host: ClientSession, path: Path
) -> None:
    scenario(path).play_unanswered(resuming_form_host)
