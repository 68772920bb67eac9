"""One game's history in the logs: each tool call that acts on a game or a form carries `ref`, the keyed reference
`make log-ref` computes for its id (never the id), through the official client against the app with DynamoDB on
moto; a call on no session carries none."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from dynamodb_probe import client_for, moto_dynamodb
from mcp import Client
from servers import serve
from telemetry_capture import written_lines
from widget_mcp.log_refs import REF_CHARS
from widget_mcp.settings import Settings
from widget_mcp.storage.dynamodb import DynamoDbDocumentStore
from widget_mcp.wiring import build_app, build_core

from infra.log_ref import key_from_environment, main
from infra.log_ref import reference as cli_reference

TABLE = "log-refs-state"
SECRET = "k" * 40
ME = {"openai/subject": "log-ref-user"}


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, Any]]:
    with pytest.MonkeyPatch.context() as env, moto_dynamodb(TABLE) as dynamodb:
        env.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
        settings = Settings(
            allowed_hosts=("127.0.0.1:*",),
            widget_base_url="https://d111111abcdef8.cloudfront.net/widgets",
            table_name=TABLE,
            request_state_secret=SECRET,
        )
        core = build_core(settings, concurrent=True, store=DynamoDbDocumentStore(client_for(dynamodb), TABLE))
        with serve(build_app(core)) as url:
            yield url, core


def _logged(core: Any, capsys: pytest.CaptureFixture[str], calls: Any) -> tuple[Any, list[dict[str, Any]]]:
    """What `calls` returns, and every tool call's line the function wrote meanwhile: its EMF documents (printed)
    and its WARNING lines (the logger's)."""
    with written_lines(core.observability.logger, capsys) as lines:
        returned = asyncio.run(calls)
    return returned, [line for line in lines if line.get("message") in ("tool call finished", "tool call failed")]


async def _calls(url: str) -> dict[str, str]:
    async with Client(f"{url}/mcp") as client:
        game = await client.call_tool("chess_new_game", {}, meta=ME)  # type: ignore[arg-type]
        game_id = game.structured_content["gameId"]
        await client.call_tool("chess_move", {"gameId": game_id, "move": "e4"}, meta=ME)  # type: ignore[arg-type]
        await client.call_tool("chess_move", {"gameId": game_id, "move": "e5e6"}, meta=ME)  # type: ignore[arg-type]
        await client.call_tool("chess_list_games", {}, meta=ME)  # type: ignore[arg-type]
        question = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 20}}}
        form = await client.call_tool("ask_question", {"question": question}, meta=ME)  # type: ignore[arg-type]
    return {"game": game_id, "form": form.structured_content["formId"]}


def test_calls_on_a_game_or_form_carry_the_ref_make_log_ref_computes_and_others_none(
    served: tuple[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    url, core = served
    ids, calls = _logged(core, capsys, _calls(url))
    key = key_from_environment({"REQUEST_STATE_SECRET": SECRET})
    game_ref, form_ref = cli_reference(key, ids["game"]), cli_reference(key, ids["form"])
    by_tool: dict[str, list[Any]] = {}
    for line in calls:
        by_tool.setdefault(line["tool"], []).append((line.get("error_code") is None, line.get("ref")))
    assert by_tool["chess_new_game"] == [(True, game_ref)]
    assert sorted(by_tool["chess_move"]) == [(False, game_ref), (True, game_ref)]  # the refused move too
    assert by_tool["chess_list_games"] == [(True, None)]
    assert by_tool["ask_question"] == [(True, form_ref)]
    assert len(game_ref) == REF_CHARS
    assert game_ref != form_ref
    assert not any(ids["game"] in json.dumps(line) or ids["form"] in json.dumps(line) for line in calls)


def test_a_call_on_a_made_up_id_carries_the_ref_of_the_id_as_sent(
    served: tuple[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    url, core = served

    async def probe() -> Any:
        async with Client(f"{url}/mcp") as client:
            return await client.call_tool("chess_show_game", {"gameId": "made-up-game"}, meta=ME)  # type: ignore[arg-type]

    shown, calls = _logged(core, capsys, probe())
    assert shown.is_error
    key = key_from_environment({"REQUEST_STATE_SECRET": SECRET})
    assert [(line["error_code"], line["ref"]) for line in calls] == [
        ("game_not_found", cli_reference(key, "made-up-game"))
    ]


def test_make_log_ref_prints_the_reference_for_each_id_and_refuses_without_a_key(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REQUEST_STATE_SECRET", SECRET)
    monkeypatch.delenv("REQUEST_STATE_SECRET_ARN", raising=False)
    assert main(["g1", "g2"]) == 0
    out = capsys.readouterr().out
    key = SECRET.encode()
    assert f"g1  ref {cli_reference(key, 'g1')}" in out
    assert f"g2  ref {cli_reference(key, 'g2')}" in out
    monkeypatch.delenv("REQUEST_STATE_SECRET")
    with pytest.raises(SystemExit, match="REQUEST_STATE_SECRET"):
        main(["g1"])
