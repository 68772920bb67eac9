"""Every client of the matrix, in every era it speaks, against `make dev`'s server: lists the tools, reads their
templates, calls each tool with its declared examples, and gets invalid arguments and unknown ids as error results
whose text is the sentence (never a throw), all derived from the app registry; then plays each app's scenario
(scenarios/<app>.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from client_plan import SPECS, example_arguments, id_fields, identity_probe, invalid_arguments, unknown_id
from client_scenarios import SCENARIOS, scenario
from client_session import ClientSession
from served_tools import SERVED_TOOLS
from widget_mcp.apps.registry import APPS

MCP_APP_MIME = "text/html;profile=mcp-app"
INVALID_CALLS = [tool for tool in SERVED_TOOLS if invalid_arguments(tool) is not None]
ID_CALLS = [(tool, field) for tool in SERVED_TOOLS for field in id_fields(tool)]
# The tools that need an identified user, as declared (`needs_identity=True`): the other tests call them as ChatGPT
# does, with an openai/subject; hosts that send none (Claude, VS Code) get identity_required.
IDENTITY_CALLS = [tool for tool in SERVED_TOOLS if SPECS[tool].needs_identity]


def _template_of(tool: dict[str, Any]) -> str | None:
    uri = ((tool.get("_meta") or {}).get("ui") or {}).get("resourceUri")
    return uri if isinstance(uri, str) else None


def test_each_client_lists_every_served_tool_with_its_output_schema_and_template(client: ClientSession) -> None:
    # App-only tools too, unless the server knows the client shows no widget (only a model could call them there).
    assert list(client.tools) == client.offered_tools, client.name
    for name, tool in client.tools.items():
        assert isinstance(tool.get("outputSchema"), dict), f"{client.name}: {name} lost its outputSchema"
        has_template = _template_of(tool) is not None
        assert has_template == (SPECS[name].widget is not None), f"{client.name}: {name} _meta {tool.get('_meta')}"


def test_each_client_reads_every_widget_template(client: ClientSession) -> None:
    uris = sorted({uri for tool in client.tools.values() if (uri := _template_of(tool))})
    assert uris, "no served tool has a widget"
    for uri in uris:
        contents = client.read(uri)
        assert [(c["uri"], c["mimeType"]) for c in contents] == [(uri, MCP_APP_MIME)], f"{client.name}: {uri}"
        assert "<script" in contents[0]["text"], f"{client.name}: {uri} is not a widget page"


@pytest.mark.parametrize("tool", SERVED_TOOLS)
def test_each_client_gets_each_tools_example_call_as_a_result_that_fits_its_output_schema(
    client: ClientSession, tool: str
) -> None:
    refusal = client.refusal(tool)  # an app-only tool, where the client shows no widget
    if refusal is not None:
        client.fails(tool, client.with_ids(tool, example_arguments(tool)), refusal)
        return
    client.succeeds(tool, client.with_ids(tool, example_arguments(tool)))


@pytest.mark.parametrize("tool", INVALID_CALLS)
def test_each_client_gets_invalid_arguments_as_an_error_result_whose_text_is_the_sentence(
    client: ClientSession, tool: str
) -> None:
    invalid = invalid_arguments(tool)
    assert invalid is not None
    outcome = client.fails(tool, invalid, "app_only" if client.refuses(tool) else "invalid_arguments")
    assert tool in outcome.text, outcome.text


@pytest.mark.parametrize(("tool", "field"), ID_CALLS, ids=[f"{tool}.{field}" for tool, field in ID_CALLS])
def test_each_client_gets_an_unknown_id_as_a_not_found_error_result_naming_the_id(
    client: ClientSession, tool: str, field: str
) -> None:
    unknown = unknown_id(tool, field)
    if client.refuses(tool):  # refused before any id is looked up
        client.fails(tool, {**example_arguments(tool), field: unknown}, "app_only")
        return
    outcome = client.fails(tool, client.with_ids(tool, {**example_arguments(tool), field: unknown}))
    assert str(outcome.error.get("code")).endswith("_not_found"), outcome.error
    assert unknown in outcome.text, outcome.text


def test_each_client_without_identity_gets_identity_required_from_each_tool_that_needs_one(
    client: ClientSession,
) -> None:
    for tool in IDENTITY_CALLS:  # none among today's apps may need one: then there is nothing to refuse
        arguments = identity_probe(tool)
        code = "app_only" if client.refuses(tool) else "identity_required"  # refused before anything is read
        outcome = client.fails(tool, arguments, code, identified=False)
        assert code == "app_only" or tool in outcome.text, outcome.text


def test_each_scenario_is_named_for_a_served_app() -> None:
    apps = {entry.rsplit(".", 1)[-1] for entry in APPS}
    assert SCENARIOS, "no scenarios"
    assert {path.stem for path in SCENARIOS} <= apps, [path.name for path in SCENARIOS]


@pytest.mark.parametrize("path", SCENARIOS, ids=[path.stem for path in SCENARIOS])
def test_each_client_plays_each_apps_scenario(client: ClientSession, path: Path) -> None:
    scenario(path).play(client)
