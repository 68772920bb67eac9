"""The baselines' chess: a minimal chess_move on our pure domain (python-chess underneath), each game kept as its
UCI moves in a dict and loaded by replaying them through the full move path (parse, legality, SAN) — the naive
full-replay load, without our codec, repository or three-tier result."""

from __future__ import annotations

from typing import Any

from widget_mcp.apps.chess.domain import Game

GAMES: dict[str, list[str]] = {}


def new_game() -> dict[str, Any]:
    game = Game(f"game-{len(GAMES)}")
    GAMES[game.game_id] = []
    return {"gameId": game.game_id, "ply": game.ply, "fen": game.fen, "status": game.status}


def move(game_id: str, uci: str) -> dict[str, Any]:
    moves = GAMES.setdefault(game_id, [])
    game = Game(game_id)
    for earlier in moves:
        game.play(earlier)
    record = game.play(uci)
    moves.append(record.uci)
    return {"gameId": game_id, "ply": game.ply, "san": record.san, "fen": game.fen, "status": game.status}


def seed_games(moves: list[str], count: int, tag: str) -> list[str]:
    """`count` games standing after `moves`, as a client's earlier calls would have left them."""
    ids = [f"{tag}-{i}" for i in range(count)]
    for game_id in ids:
        GAMES[game_id] = list(moves)
    return ids
