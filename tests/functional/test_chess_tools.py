"""The chess tools through the official MCP client (in memory), on the in-memory store."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client
from mcp_types import CallToolResult, TextContent
from tool_results import assert_text_carries_structure, error_of, error_state, narration_of
from widget_mcp.server import build_server
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.wiring import Core, build_core

ALICE = {"openai/subject": "alice"}
BOB = {"openai/subject": "bob"}
FOUR_MOVE_MATE = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


@pytest.fixture
def chess_core(settings: Settings) -> Core:
    return build_core(settings, store=InMemoryDocumentStore())


@pytest.fixture
def client(chess_core: Core) -> Client:
    """Entered by each test: the client's task group must open and close in the test's own task."""
    return Client(build_server(chess_core.runtime), mode="legacy")


async def new_game(client: Client, meta: dict[str, str] = ALICE, **args: Any) -> str:
    result = await client.call_tool("chess_new_game", args, meta=meta)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return str(result.structured_content["gameId"])


async def move(client: Client, game_id: str, meta: dict[str, str] = ALICE, **args: Any) -> CallToolResult:
    return await client.call_tool("chess_move", {"gameId": game_id, **args}, meta=meta)


async def show(client: Client, game_id: str, meta: dict[str, str] = ALICE) -> CallToolResult:
    return await client.call_tool("chess_show_game", {"gameId": game_id}, meta=meta)


async def test_a_move_answers_with_the_state_the_history_for_the_widget_and_a_one_line_narration(
    client: Client,
) -> None:
    async with client:
        game_id = await new_game(client)

        result = await move(client, game_id, move="Nf3", expectedPly=0)

        state = {
            "gameId": game_id,
            "fen": "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1",
            "turn": "black",
            "status": "active",
            "winner": None,
            "ply": 1,
            "check": False,
            "lastMove": {"uci": "g1f3", "san": "Nf3", "from": "g1", "to": "f3"},
            "opponent": "human",
            "playerColor": "white",
        }
        assert result == CallToolResult(
            # The narration, then the state as compact JSON: a model that is handed only the text has the FEN and
            # the ply to pass back as expectedPly.
            content=[
                TextContent(type="text", text="White played Nf3. Black to move."),
                TextContent(type="text", text=json.dumps(state, separators=(",", ":"))),
            ],
            structured_content=state,
            meta={
                "moveHistory": ["Nf3"],
                "pgn": '[Event "Casual game"]\n[Site "?"]\n[Date "????.??.??"]\n[Round "?"]\n[White "?"]\n[Black "?"]\n'
                '[Result "*"]\n\n1. Nf3 *',
                "legalMoves": result.meta["legalMoves"] if result.meta else [],
                "captured": {"white": [], "black": []},
                "openai/widgetSessionId": game_id,
            },
            is_error=False,
        )
        assert result.meta is not None
        assert len(result.meta["legalMoves"]) == 20
        assert "g8f6" in result.meta["legalMoves"]


async def test_the_four_move_mate_ends_the_game_with_white_winning_and_no_legal_moves(client: Client) -> None:
    async with client:
        game_id = await new_game(client)
        for ply, san in enumerate(FOUR_MOVE_MATE):
            result = await move(client, game_id, move=san, expectedPly=ply)
            assert not result.is_error, result.content

        assert result.structured_content is not None
        assert result.structured_content["status"] == "checkmate"
        assert result.structured_content["winner"] == "white"
        assert result.structured_content["check"] is True
        assert narration_of(result) == "White played Qxf7#. Checkmate: white wins."
        assert_text_carries_structure(result)
        assert result.meta is not None
        assert result.meta["legalMoves"] == []
        assert result.meta["moveHistory"] == FOUR_MOVE_MATE
        assert result.meta["pgn"].endswith("1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0")
        assert result.meta["captured"] == {"white": ["p"], "black": []}
        late = await move(client, game_id, move="Ke7")
        assert error_of(late)["code"] == "game_over"


async def test_moves_can_be_given_as_uci_or_as_squares_with_a_promotion(client: Client) -> None:
    async with client:
        game_id = await new_game(client, fen="8/P6k/8/8/8/8/8/K7 w - - 0 1")

        result = await move(client, game_id, **{"from": "a7", "to": "a8", "promotion": "q"})

        assert result.structured_content is not None
        assert result.structured_content["lastMove"] == {"uci": "a7a8q", "san": "a8=Q", "from": "a7", "to": "a8"}
        again = await move(client, game_id, move="h7g6")
        assert again.structured_content is not None
        assert again.structured_content["lastMove"]["san"] == "Kg6"


async def test_against_the_engine_its_reply_comes_in_the_same_call_with_its_analysis(client: Client) -> None:
    async with client:
        game_id = await new_game(client, opponent="engine")

        result = await move(client, game_id, move="e4", expectedPly=0)

        assert result.structured_content is not None
        assert result.structured_content["ply"] == 2
        assert result.structured_content["turn"] == "white"
        assert result.meta is not None
        reply = result.meta["moveHistory"][1]
        assert narration_of(result) == f"White played e4; the engine replied {reply}. White to move."
        analysis = result.meta["analysis"]
        assert analysis["bestMoveSan"] == reply
        assert analysis["pv"][0] == analysis["bestMove"] == result.structured_content["lastMove"]["uci"]
        assert analysis["depth"] >= 1
        assert 0 < analysis["nodes"] <= 20_000


async def test_playing_black_against_the_engine_starts_with_the_engines_first_move(client: Client) -> None:
    async with client:
        result = await client.call_tool("chess_new_game", {"color": "black", "opponent": "engine"}, meta=ALICE)

        assert result.structured_content is not None
        assert (result.structured_content["ply"], result.structured_content["turn"]) == (1, "black")
        assert result.meta is not None
        assert "analysis" in result.meta
        assert "The engine opened with" in narration_of(result)


async def test_a_retried_move_with_the_same_expected_ply_returns_the_same_result_and_moves_once(
    client: Client,
) -> None:
    async with client:
        game_id = await new_game(client, opponent="engine")
        first = await move(client, game_id, move="d4", expectedPly=0)

        retry = await move(client, game_id, move="d2d4", expectedPly=0)

        assert retry == first
        shown = await show(client, game_id)
        assert shown.structured_content is not None
        assert shown.structured_content["ply"] == 2


async def test_a_move_for_a_ply_the_game_has_left_is_a_conflict_carrying_the_current_state(client: Client) -> None:
    async with client:
        game_id = await new_game(client)
        await move(client, game_id, move="e4", expectedPly=0)
        current = await show(client, game_id)

        stale = await move(client, game_id, move="d4", expectedPly=0)

        assert error_of(stale)["code"] == "conflict"
        # The game as it now stands follows the sentence in the text; it is not structuredContent, which some
        # clients hand their model alone (without the sentence).
        assert error_state(stale) == current.structured_content
        assert stale.meta is not None
        assert stale.meta["moveHistory"] == ["e4"]
        assert stale.meta["openai/widgetSessionId"] == game_id
        ahead = await move(client, game_id, move="e5", expectedPly=5)
        assert error_of(ahead)["code"] == "conflict"
        assert (await show(client, game_id)) == current


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({"move": "e5"}, "illegal_move"),
        ({"move": "Ke2"}, "illegal_move"),
        ({"move": "hello"}, "invalid_move"),
        ({"from": "e2", "to": "e5"}, "illegal_move"),
        ({"move": 42}, "invalid_arguments"),
        ({"move": "e4", "expectedPly": "0"}, "invalid_arguments"),
        ({"move": "e4", "expectedPly": -1}, "invalid_arguments"),
        ({"move": "e4", "from": "e2", "to": "e4"}, "invalid_arguments"),
        ({"from": "e2"}, "invalid_arguments"),
        ({"from": "z9", "to": "e4"}, "invalid_arguments"),
        ({"move": "e4", "colour": "white"}, "invalid_arguments"),
    ],
)
async def test_a_bad_move_is_a_clear_error_and_leaves_the_game_as_it_was(
    client: Client, args: dict[str, Any], code: str
) -> None:
    async with client:
        game_id = await new_game(client)
        before = await show(client, game_id)

        result = await move(client, game_id, **args)

        error = error_of(result)
        assert error["code"] == code
        assert narration_of(result) == error["message"]
        assert_text_carries_structure(result)
        assert await show(client, game_id) == before


async def test_a_promotion_without_its_piece_is_refused_as_an_invalid_move(client: Client) -> None:
    async with client:
        game_id = await new_game(client, fen="8/P6k/8/8/8/8/8/K7 w - - 0 1")

        result = await move(client, game_id, **{"from": "a7", "to": "a8"})

        assert error_of(result)["code"] == "invalid_move"
        assert "promotion" in error_of(result)["message"]


async def test_a_position_that_is_not_a_position_is_refused_at_creation(client: Client) -> None:
    async with client:
        result = await client.call_tool("chess_new_game", {"fen": "not/a/fen"}, meta=ALICE)

        assert error_of(result)["code"] == "invalid_position"
        listed = await client.call_tool("chess_list_games", {}, meta=ALICE)
        assert listed.structured_content == {"games": [], "count": 0}


async def test_another_users_game_is_not_found_by_any_tool_and_not_listed(client: Client) -> None:
    async with client:
        game_id = await new_game(client, meta=ALICE)
        calls = [
            ("chess_move", {"gameId": game_id, "move": "e4"}),
            ("chess_show_game", {"gameId": game_id}),
            ("chess_resign", {"gameId": game_id}),
        ]

        for tool, args in calls:
            stranger = await client.call_tool(tool, args, meta=BOB)
            nobody = await client.call_tool(tool, args)
            unknown = await client.call_tool(tool, {**args, "gameId": "0" * 22}, meta=ALICE)
            assert error_of(stranger) == error_of(unknown) | {"message": error_of(stranger)["message"]}
            assert (error_of(stranger)["code"], error_of(nobody)["code"]) == ("game_not_found", "game_not_found")
        listed = await client.call_tool("chess_list_games", {}, meta=BOB)
        assert listed.structured_content == {"games": [], "count": 0}
        mine = await show(client, game_id)
        assert mine.structured_content is not None
        assert (mine.structured_content["ply"], mine.structured_content["status"]) == (0, "active")


async def test_a_caller_without_identity_plays_a_game_reached_by_its_id_and_lists_none(client: Client) -> None:
    async with client:
        created = await client.call_tool("chess_new_game", {"opponent": "engine", "color": "black"})
        game_id = str(created.structured_content and created.structured_content["gameId"])
        played = await client.call_tool("chess_move", {"gameId": game_id, "move": "e5", "expectedPly": 1})
        listed = await client.call_tool("chess_list_games", {})

    assert (created.structured_content or {})["ply"] == 1  # the engine, playing white, opened
    assert (created.meta or {})["openai/widgetSessionId"] == game_id
    assert not played.is_error, played.content
    assert (played.structured_content or {})["ply"] == 3
    assert listed.structured_content == {"games": [], "count": 0}
    assert isinstance(listed.content[0], TextContent)
    assert listed.content[0].text.startswith("Listing games needs a signed-in or identified user")


async def test_with_anonymous_state_refused_a_caller_without_identity_cannot_start_a_game_or_list(
    settings: Settings,
) -> None:
    refusing = build_core(settings.model_copy(update={"anonymous_state": "refuse"}), store=InMemoryDocumentStore())
    async with Client(build_server(refusing.runtime), mode="legacy") as client:
        created = await client.call_tool("chess_new_game", {})
        listed = await client.call_tool("chess_list_games", {})
        mine = await new_game(client)

    assert error_of(created)["code"] == error_of(listed)["code"] == "identity_required"
    assert error_of(created)["message"].startswith("Games are kept per user")
    assert mine


async def test_games_are_listed_newest_first_with_a_table_widget(client: Client) -> None:
    async with client:
        first = await new_game(client)
        second = await new_game(client, opponent="engine")
        await move(client, first, move="e4")

        listed = await client.call_tool("chess_list_games", {}, meta=ALICE)

        assert listed.structured_content is not None
        games = listed.structured_content["games"]
        assert [g["gameId"] for g in games] == [second, first]
        assert (games[1]["ply"], games[1]["turn"], games[0]["opponent"]) == (1, "black", "engine")
        assert listed.meta is not None
        [table] = listed.meta["widgets"]
        assert table["widget"] == "table"
        assert [row[0] for row in table["data"]["rows"]] == [second, first]


async def test_showing_a_game_emits_a_board_and_a_move_list_display_widget_with_text_fallbacks(
    client: Client,
) -> None:
    async with client:
        game_id = await new_game(client)
        for san in ("e4", "e5", "Nf3"):
            await move(client, game_id, move=san)

        shown = await show(client, game_id)

        assert shown.meta is not None
        board, moves = shown.meta["widgets"]
        assert (board["widget"], moves["widget"]) == ("chess-board", "move-list")
        assert board["data"]["fen"] == shown.structured_content["fen"]  # type: ignore[index]
        assert moves["data"]["moves"] == ["e4", "e5", "Nf3"]
        assert moves["fallback"] == "1. e4 e5 2. Nf3"
        texts = [c.text for c in shown.content]  # type: ignore[union-attr]
        assert_text_carries_structure(shown)
        assert texts[2:] == [board["fallback"], "1. e4 e5 2. Nf3"]  # after the narration and the state
        assert "R N B Q K B . R" in board["fallback"]


async def test_resigning_ends_the_game_for_the_resigning_player_and_cannot_be_repeated(client: Client) -> None:
    async with client:
        vs_engine = await new_game(client, opponent="engine")
        hot_seat = await new_game(client)
        await move(client, hot_seat, move="e4")

        engine_result = await client.call_tool("chess_resign", {"gameId": vs_engine}, meta=ALICE)
        seat_result = await client.call_tool("chess_resign", {"gameId": hot_seat}, meta=ALICE)
        again = await client.call_tool("chess_resign", {"gameId": hot_seat}, meta=ALICE)

        assert engine_result.structured_content is not None
        assert (engine_result.structured_content["status"], engine_result.structured_content["winner"]) == (
            "resigned",
            "black",
        )
        assert narration_of(seat_result) == "Black resigned: white wins."
        assert_text_carries_structure(seat_result)
        assert error_of(again)["code"] == "game_over"
        late = await move(client, hot_seat, move="e5")
        assert error_of(late)["code"] == "game_over"


async def test_chess_tools_declare_their_hints_templates_and_widget_access(client: Client, chess_core: Core) -> None:
    async with client:
        tools = {t.name: t for t in (await client.list_tools()).tools if t.name.startswith("chess_")}
        board = chess_core.runtime.template_uri("chess-board")
        display = chess_core.runtime.template_uri("display")

        declared = {
            name: (
                tool.annotations.read_only_hint if tool.annotations else None,
                tool.annotations.destructive_hint if tool.annotations else None,
                (tool.meta or {})["openai/outputTemplate"],
                (tool.meta or {})["openai/widgetAccessible"],
            )
            for name, tool in tools.items()
        }
        assert declared == {
            "chess_new_game": (False, True, board, False),
            "chess_move": (False, True, board, True),
            "chess_show_game": (True, False, display, True),
            "chess_list_games": (True, False, display, False),
            "chess_resign": (False, True, board, True),
        }
        assert tools["chess_move"].output_schema is not None
        assert set(tools["chess_move"].output_schema["required"]) >= {"gameId", "fen", "turn", "status", "ply"}


async def test_a_client_that_sends_null_for_optional_arguments_is_answered_as_if_it_left_them_out(
    client: Client,
) -> None:
    async with client:
        listed = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
        assert listed["chess_move"]["properties"]["from"]["type"] == "string"  # published without null

        game_id = await new_game(client, fen=None)
        result = await move(client, game_id, move="e4", expectedPly=None, **{"from": None, "to": None})

        assert not result.is_error, result.content
        assert result.structured_content is not None
        assert result.structured_content["ply"] == 1
