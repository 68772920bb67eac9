"""What a user does with the chess tools, end to end, through whatever connection the client was given."""

from __future__ import annotations

from mcp import Client
from tool_results import assert_text_carries_structure, error_of, narration_of

FOUR_MOVE_MATE = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]


async def play_the_tour(client: Client, subject: str) -> None:
    """Start a game and mate in four, play the engine, list both games, resign the engine game."""
    me = {"openai/subject": subject}
    started = await client.call_tool("chess_new_game", {}, meta=me)
    assert started.structured_content is not None, started.content
    mate_id = started.structured_content["gameId"]
    for ply, san in enumerate(FOUR_MOVE_MATE):
        result = await client.call_tool("chess_move", {"gameId": mate_id, "move": san, "expectedPly": ply}, meta=me)
        assert not result.is_error, result.content
    assert result.structured_content is not None
    assert (result.structured_content["status"], result.structured_content["winner"]) == ("checkmate", "white")
    assert narration_of(result) == "White played Qxf7#. Checkmate: white wins."
    assert_text_carries_structure(result)  # the final position, as JSON, for a model that reads only text

    engine = await client.call_tool("chess_new_game", {"opponent": "engine"}, meta=me)
    assert engine.structured_content is not None
    engine_id = engine.structured_content["gameId"]
    replied = await client.call_tool("chess_move", {"gameId": engine_id, "from": "d2", "to": "d4"}, meta=me)
    assert replied.structured_content is not None
    assert replied.structured_content["ply"] == 2
    assert replied.meta is not None
    assert replied.meta["analysis"]["nodes"] > 0
    assert replied.meta["openai/widgetSessionId"] == engine_id

    listed = await client.call_tool("chess_list_games", {}, meta=me)
    assert listed.structured_content is not None
    assert [(g["gameId"], g["status"]) for g in listed.structured_content["games"]] == [
        (engine_id, "active"),
        (mate_id, "checkmate"),
    ]
    resigned = await client.call_tool("chess_resign", {"gameId": engine_id}, meta=me)
    assert resigned.structured_content is not None
    assert (resigned.structured_content["status"], resigned.structured_content["winner"]) == ("resigned", "black")
    stranger = await client.call_tool("chess_show_game", {"gameId": engine_id}, meta={"openai/subject": "someone"})
    assert (error_of(stranger)["code"], stranger.structured_content) == ("game_not_found", None)
