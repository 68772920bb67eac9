"""Our handler, as deployed; for the chess workload, with games on the in-memory store (no DynamoDB latency)."""

from __future__ import annotations

import os
from typing import Any

from bench.events import HOST, SUBJECT

TOOL = "display_demo"


def make_handler(chess: bool = False) -> Any:
    """`chess`: the chess workload (games seeded with `seed_games`); every workload keeps its state, the rate limit's
    counters included, on the in-memory store."""
    os.environ.setdefault("ALLOWED_HOSTS", HOST)
    # One bench user plays hundreds of moves a second: the limit is raised so that each call is made and timed,
    # while the limiter still counts every one, a trivial call's too (on the in-memory store here; its DynamoDB
    # request is the "DynamoDB calls per move" row's).
    os.environ.setdefault("RATE_LIMIT_CALLS", "1000000")
    from widget_mcp import wiring
    from widget_mcp.storage.memory import InMemoryDocumentStore

    store = InMemoryDocumentStore()
    real = wiring.build_core
    wiring.build_core = lambda settings, **kw: real(settings, **{**kw, "store": store})
    from widget_mcp.handler import handler

    return handler


def resource_uri() -> str:
    """The chess board's template (after `make_handler`)."""
    from widget_mcp.handler import core

    return core.runtime.template_uri("chess-board")


def seed_games(moves: list[str], count: int, tag: str) -> list[str]:
    """`count` games standing after `moves`, stored as chess_new_game and chess_move would have left them."""
    from widget_mcp.apps.chess.domain import Game
    from widget_mcp.apps.chess.repository import GameRepository
    from widget_mcp.handler import core
    from widget_mcp.toolkit.ownership import StateOwner
    from widget_mcp.toolkit.principal import OPENAI_SUBJECT, resolve_principal

    owner = StateOwner(resolve_principal({OPENAI_SUBJECT: SUBJECT}).key)
    games = GameRepository(core.store)
    ids = []
    for i in range(count):
        game = Game(f"{tag}-{i}")
        for uci in moves:
            game.play(uci)
        games.create(owner, game, None)
        ids.append(game.game_id)
    return ids
