"""Benchmark: a warm `chess_move` through the Lambda handler, against the SDK baseline's warm tools/call;
and the engine's reply time at the default budget.

    python -m bench.chess [--calls 300] [--engine-positions 8]

The repository runs on the in-memory store so DynamoDB latency is left out: what is measured is our
handler, the protocol layer and the chess work (load by replay, the move, save, the result's history).
Moves are timed at two points of a game: the opening (ply 0) and the middle game (ply 60), since loading
a game replays its moves. Ours and the baseline alternate in batches within one process; medians are reported.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from bench.events import HOST, LambdaContext, http_v2_event, tool_call

SUBJECT = "bench-user"
MIDDLE_PLY = 60


def quiet_game(plies: int) -> tuple[list[str], str]:
    """A legal game of `plies` half-moves that is still going (seeded random play), and a legal next move."""
    import random

    import chess

    for seed in range(100):
        rng, board = random.Random(seed), chess.Board()
        while board.ply() < plies and not board.is_game_over():
            moves = sorted(board.legal_moves, key=lambda m: m.uci())
            board.push(rng.choice([m for m in moves if not board.is_capture(m)] or moves))
        if board.ply() == plies and not board.is_game_over():
            return [m.uci() for m in board.move_stack], min(m.uci() for m in board.legal_moves)
    raise SystemExit("no seed gave a long enough game")


def _silently(fn: Callable[[], Any]) -> Any:
    with contextlib.redirect_stdout(io.StringIO()):
        return fn()


def _our_handler() -> tuple[Callable[..., dict[str, Any]], Any]:
    os.environ.setdefault("ALLOWED_HOSTS", HOST)
    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    from widget_mcp import wiring
    from widget_mcp.storage.memory import InMemoryDocumentStore

    store = InMemoryDocumentStore()
    real = wiring.build_core
    wiring.build_core = lambda settings, **kw: real(settings, **{**kw, "store": store})  # type: ignore[assignment]
    from widget_mcp.handler import core, handler

    return handler, core


def _new_game(handler: Callable[..., dict[str, Any]], moves: list[str]) -> str:
    import json

    event = http_v2_event(tool_call("chess_new_game", {}))
    event_body = json.loads(event["body"])
    event_body["params"]["_meta"] = {"openai/subject": SUBJECT}
    event["body"] = json.dumps(event_body)
    game_id: str = json.loads(handler(event, LambdaContext())["body"])["result"]["structuredContent"]["gameId"]
    for uci in moves:
        _move(handler, game_id, uci, check=True)
    return game_id


def _move_event(game_id: str, uci: str) -> dict[str, Any]:
    import json

    body = tool_call("chess_move", {"gameId": game_id, "move": uci})
    body["params"]["_meta"] = {"openai/subject": SUBJECT}
    return http_v2_event(body) | {"body": json.dumps(body)}


def _move(handler: Callable[..., dict[str, Any]], game_id: str, uci: str, check: bool = False) -> None:
    response = handler(_move_event(game_id, uci), LambdaContext())
    if check and '"isError":false' not in response["body"].replace(" ", ""):
        raise SystemExit(f"move {uci} failed: {response['body'][:300]}")


def _time_moves(handler: Callable[..., dict[str, Any]], prefix: list[str], uci: str, calls: int) -> float:
    """Seconds per move: each call plays `uci` in its own game that stands after `prefix`."""
    games = [_new_game(handler, prefix) for _ in range(calls)]
    events = [_move_event(g, uci) for g in games]
    started = time.perf_counter()
    for event in events:
        handler(event, LambdaContext())
    return (time.perf_counter() - started) / calls


def _time_baseline(handler: Callable[..., dict[str, Any]], calls: int) -> float:
    event = http_v2_event(tool_call("echo", {"message": "hello"}))
    started = time.perf_counter()
    for _ in range(calls):
        handler(event, LambdaContext())
    return (time.perf_counter() - started) / calls


def _engine_times(positions: int) -> list[float]:
    from widget_mcp.apps.chess.domain import Game, choose_move
    from widget_mcp.settings import Settings

    settings = Settings()
    times = []
    moves, _ = quiet_game(MIDDLE_PLY)
    for ply in range(0, positions * 8, 8):
        game = Game("bench")
        for uci in moves[: min(ply, MIDDLE_PLY)]:
            game.play(uci)
        started = time.perf_counter()
        choose_move(game, max_nodes=settings.chess_engine_max_nodes, max_seconds=settings.chess_engine_max_seconds)
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--engine-positions", type=int, default=8)
    args = parser.parse_args()
    from bench import baseline

    logging.disable(logging.INFO)  # the baseline logs every request
    ours, _ = _silently(_our_handler)
    base = _silently(baseline.make_handler)
    batch = max(10, args.calls // 5)
    opening: list[float] = []
    middle: list[float] = []
    reference: list[float] = []
    prefix, next_move = quiet_game(MIDDLE_PLY)
    with contextlib.redirect_stdout(io.StringIO()):
        for _ in range(args.calls // batch):
            reference.append(_time_baseline(base, batch))
            opening.append(_time_moves(ours, [], "e2e4", batch))
            middle.append(_time_moves(ours, prefix, next_move, batch))
    base_ms = statistics.median(reference) * 1000
    print(f"{'measure':40} {'ours':>10} {'baseline':>10}  {'ratio':>6}  target")
    for label, data in (("warm chess_move, opening (ply 0)", opening), (f"warm chess_move, ply {MIDDLE_PLY}", middle)):
        ours_ms = statistics.median(data) * 1000
        ratio = ours_ms / base_ms
        verdict = "met" if ratio <= 0.5 else "missed"
        print(f"{label:40} {ours_ms:8.3f}ms {base_ms:8.3f}ms  {ratio:6.3f}  <= 0.5 ({verdict})")
    engine = _engine_times(args.engine_positions)
    print(
        f"engine reply at the default budget: median {statistics.median(engine) * 1000:.0f} ms, "
        f"max {max(engine) * 1000:.0f} ms over {len(engine)} positions"
    )


if __name__ == "__main__":
    sys.exit(main())
