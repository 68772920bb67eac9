"""Chess as a host's model plays it, in any client of the matrix: a legal and an illegal move, a stale
`expectedPly`, an unknown game and invalid arguments; every refusal arrives as an error result with its sentence."""

from __future__ import annotations

from client_session import ClientSession


def play(client: ClientSession) -> None:
    started = client.succeeds("chess_new_game", {})
    game = started.structured["gameId"]
    assert (started.structured["ply"], started.structured["turn"]) == (0, "white"), started.structured

    moved = client.succeeds("chess_move", {"gameId": game, "move": "e4", "expectedPly": 0})
    assert (moved.structured["ply"], moved.structured["lastMove"]["san"]) == (1, "e4"), moved.structured
    # The same move with the same expectedPly is a retry of one that landed: its result again, not an error.
    retried = client.succeeds("chess_move", {"gameId": game, "move": "e4", "expectedPly": 0})
    assert retried.structured == moved.structured, retried.structured

    illegal = client.fails("chess_move", {"gameId": game, "move": "Ke3"}, "illegal_move")
    assert "Ke3" in illegal.text, illegal.text

    stale = client.fails("chess_move", {"gameId": game, "move": "e5", "expectedPly": 0}, "conflict")
    # A conflict carries the current game, so a widget can redraw it without another call.
    assert (stale.structured["gameId"], stale.structured["ply"]) == (game, 1), stale.result

    client.fails("chess_show_game", {"gameId": "no-such-game"}, "game_not_found")
    client.fails("chess_move", {"gameId": game, "move": "e5", "from": "e7", "to": "e5"}, "invalid_arguments")

    shown = client.succeeds("chess_show_game", {"gameId": game})
    assert shown.structured["ply"] == 1, "a refused move changed the game"
