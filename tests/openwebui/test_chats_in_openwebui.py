"""The integration inside the real Open WebUI: installed through its API, driven through its chat API, checked on
the chats Open WebUI stores (tool calls, statuses, citations, embeds, failures)."""

from __future__ import annotations

import json
from typing import Any

from conftest import Server
from openwebui_client import OpenWebUIClient
from scripted_model import ScriptedModel

PREVIEW_CHARS = 500


def _model_visible(tool: dict[str, Any]) -> bool:
    visibility = ((tool.get("_meta") or {}).get("ui") or {}).get("visibility")
    return not isinstance(visibility, list) or "model" in visibility


def _meta(server: Server, name: str) -> dict[str, Any]:
    return next(dict(t.get("_meta") or {}) for t in server.tools() if t["name"] == name)


def _output_text(output: dict[str, Any]) -> str:
    return "".join(part.get("text", "") for part in output.get("output") or [])


def test_every_tool_the_server_offers_the_model_reaches_the_model_by_its_name_with_its_parameters(
    admin: OpenWebUIClient, server: Server, model: ScriptedModel
) -> None:
    tools = server.tools()
    specs = {spec["name"]: spec for spec in admin.tool()["specs"]}
    for tool in tools:
        offered = [name for name in specs if name == tool["name"] or name.endswith("_" + tool["name"])]
        if not _model_visible(tool):
            assert offered == [], f"{tool['name']} is the widget's only, yet offered to the model"
            continue
        assert len(offered) == 1, (tool["name"], sorted(specs))
        parameters = specs[offered[0]]["parameters"]
        schema = tool["inputSchema"]
        assert set(parameters["properties"]) == set(schema.get("properties", {})), tool["name"]
        assert set(parameters.get("required", [])) == set(schema.get("required", [])), tool["name"]
        for name, prop in schema.get("properties", {}).items():
            for key in ("description", "enum", "pattern", "maxLength"):
                if key in prop:
                    assert parameters["properties"][name][key] == prop[key], (tool["name"], name, key)
    admin.chat("hello")
    assert {f["name"] for f in model.offered_functions()} == {n for n in specs}


def test_a_widget_tool_is_stored_with_its_statuses_its_citation_and_its_widget_inline(
    admin: OpenWebUIClient, server: Server
) -> None:
    chat = admin.chat('call chess_new_game {"opponent": "engine"}')
    meta = _meta(server, "chess_new_game")
    (call,) = chat.function_calls()
    (output,) = chat.function_outputs()
    assert call["status"] == output["status"] == "completed"
    assert [s["description"] for s in chat.message["statusHistory"]] == [
        meta["openai/toolInvocation/invoking"],
        meta["openai/toolInvocation/invoked"],
    ]
    assert chat.message["statusHistory"][-1]["done"] is True
    (source,) = chat.message["sources"]
    full = json.loads(source["metadata"][0]["full_result"])
    game = full["structuredContent"]["gameId"]
    assert source["source"]["name"].endswith("chess_new_game")
    assert game in source["document"][0]
    assert full["_meta"]["legalMoves"], "the citation keeps the full result, _meta included"
    (embed,) = output["embeds"]
    template = server.rpc("resources/read", {"uri": meta["ui"]["resourceUri"]})["contents"][0]["text"]
    entry = template.split('data-widget-entry="')[1].split('"')[0]
    assert f'data-widget-entry=\\"{entry}\\"' in embed, "the embed carries the tool's own template"
    assert game in embed, "the embed carries the tool result for the widget"
    assert game in _output_text(output), "the model reads the result (with the game id) as the tool's output"


def test_a_citation_previews_at_most_500_characters_and_keeps_the_whole_result(admin: OpenWebUIClient) -> None:
    message = "move " * 400
    chat = admin.chat(f"call display_demo {json.dumps({'message': message})}")
    (source,) = chat.message["sources"]
    assert len(source["document"][0]) == PREVIEW_CHARS
    assert message.strip() in json.loads(source["metadata"][0]["full_result"])["structuredContent"]["message"]


def test_a_failing_tool_is_stored_as_failed_with_its_sentence_and_a_failed_status(
    admin: OpenWebUIClient, server: Server
) -> None:
    chat = admin.chat('call chess_move {"gameId": "no-such-game", "move": "e4"}')
    (output,) = chat.function_outputs()
    assert output["status"] == "failed"
    answer = json.loads(_output_text(output))
    assert answer["code"] == "game_not_found"
    assert "game" in answer["error"].lower()
    assert not output.get("embeds"), "a failed call shows no widget"
    last = chat.message["statusHistory"][-1]
    assert last["done"] is True
    assert answer["error"] in last["description"]
    (source,) = chat.message["sources"]
    assert json.loads(source["metadata"][0]["full_result"])["isError"] is True


def test_each_open_webui_user_has_their_own_games_and_cannot_play_another_users(
    admin: OpenWebUIClient, bob: OpenWebUIClient
) -> None:
    created = admin.chat("call chess_new_game {}")
    game = json.loads(created.message["sources"][0]["metadata"][0]["full_result"])["structuredContent"]["gameId"]
    theirs = bob.chat(f"call chess_move {json.dumps({'gameId': game, 'move': 'e4'})}")
    (output,) = theirs.function_outputs()
    assert output["status"] == "failed"
    assert json.loads(_output_text(output))["code"] == "game_not_found"
    listed = bob.chat("call chess_list_games {}")
    assert game not in json.dumps(listed.message["sources"])
    mine = admin.chat(f"call chess_move {json.dumps({'gameId': game, 'move': 'e4'})}")
    (output,) = mine.function_outputs()
    assert output["status"] == "completed"
