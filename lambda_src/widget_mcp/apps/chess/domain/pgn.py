"""PGN export: the standard text form of a game, with SetUp/FEN headers when it did not start from the start.

Written from the game's own move records (their SAN is already known), not by replaying the board, which
would work out every move's notation again.
"""

from __future__ import annotations

from collections.abc import Sequence

import chess

from widget_mcp.apps.chess.domain.moves import MoveRecord
from widget_mcp.apps.chess.domain.outcome import GameState

LINE_WIDTH = 80  # export format: lines of at most 80 characters (PGN standard 8.2.2)


def _headers(state: GameState, start_fen: str | None, white: str, black: str) -> list[str]:
    tags = [
        ("Event", "Casual game"),
        ("Site", "?"),
        ("Date", "????.??.??"),
        ("Round", "?"),
        ("White", white),
        ("Black", black),
        ("Result", state.result),
    ]
    if start_fen is not None:
        tags += [("SetUp", "1"), ("FEN", start_fen)]
    return [
        f'[{name} "{value.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"]' for name, value in tags
    ]


def _tokens(records: Sequence[MoveRecord], start: chess.Board, state: GameState) -> list[str]:
    tokens: list[str] = []
    white_to_move, number = start.turn == chess.WHITE, start.fullmove_number
    for index, record in enumerate(records):
        if white_to_move:
            tokens.append(f"{number}.")
        elif index == 0:
            tokens.append(f"{number}...")
        tokens.append(record.san)
        if not white_to_move:
            number += 1
        white_to_move = not white_to_move
    if state.status == "resigned" and state.winner is not None:
        tokens.append(f"{{ {'Black' if state.winner == 'white' else 'White'} resigns. }}")
    tokens.append(state.result)
    return tokens


def _wrap(tokens: list[str]) -> list[str]:
    lines: list[str] = []
    line = ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > LINE_WIDTH:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    lines.append(line)
    return lines


def export_pgn(
    records: Sequence[MoveRecord],
    state: GameState,
    *,
    start: chess.Board,
    start_fen: str | None,
    white: str,
    black: str,
) -> str:
    """`start` is the board before the first move; the result is our state's, since boards know no resignations."""
    return "\n".join([*_headers(state, start_fen, white, black), "", *_wrap(_tokens(records, start, state))])
