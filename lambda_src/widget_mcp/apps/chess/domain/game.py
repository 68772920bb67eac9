"""The game aggregate: a python-chess board plus who plays it, resignations and the record of moves played.

A game resumed from an anchor (domain/anchor.py) holds every move record, but its board's move stack starts
at the anchor, which is all the rules read. Only `board`, for callers that want the whole stack, replays the
game from its start (once).
"""

from __future__ import annotations

from collections.abc import Sequence

import chess

from widget_mcp.apps.chess.domain.anchor import Anchor, anchor_at
from widget_mcp.apps.chess.domain.captures import captured_piece, empty_captures
from widget_mcp.apps.chess.domain.errors import IllegalMove, InvalidMove
from widget_mcp.apps.chess.domain.moves import MoveRecord, parse_move, record_move
from widget_mcp.apps.chess.domain.outcome import GameState, assess, game_over_error
from widget_mcp.apps.chess.domain.pgn import export_pgn
from widget_mcp.apps.chess.domain.position import load_board
from widget_mcp.apps.chess.domain.terms import (
    ClaimableDraw,
    Color,
    DrawReason,
    Opponent,
    Status,
    color_name,
    other_color,
    require_color,
    require_opponent,
)


class Game:
    """One game. Mutated only through `play` and `resign`; everything else is read from the board and records.

    `player_color` is the side the (first) human plays; against the engine the engine has the other side.
    """

    def __init__(
        self,
        game_id: str,
        *,
        opponent: Opponent = "human",
        player_color: Color = "white",
        fen: str | None = None,
    ) -> None:
        self._game_id = game_id
        self._opponent = require_opponent(opponent)
        self._player_color = require_color(player_color)
        self._board = load_board(fen)
        self._start_board = self._board.copy(stack=False)
        start = None if fen is None else self._board.fen()
        self._start_fen = None if start == chess.STARTING_FEN else start
        self._records: list[MoveRecord] = []
        self._unstacked = 0  # records played before the bottom of the board's move stack (the anchor)
        self._anchor_ply = 0  # half-moves up to and including the last irreversible one
        self._anchor: Anchor | None = None  # cached while _anchor_ply stays put
        self._captured = empty_captures()
        self._resigned_by: Color | None = None
        self._state: GameState | None = None  # cached until the next play/resign
        self._fen: str | None = None  # cached until the next move

    # Identity and setup

    @property
    def game_id(self) -> str:
        return self._game_id

    @property
    def opponent(self) -> Opponent:
        return self._opponent

    @property
    def player_color(self) -> Color:
        return self._player_color

    @property
    def engine_color(self) -> Color | None:
        return other_color(self._player_color) if self._opponent == "engine" else None

    @property
    def start_fen(self) -> str | None:
        """The FEN the game started from, or None for the standard start position."""
        return self._start_fen

    @property
    def start_board(self) -> chess.Board:
        """A copy of the position before the first move (move numbers and turns count from it)."""
        return self._start_board.copy()

    @classmethod
    def resume(
        cls,
        game_id: str,
        *,
        opponent: Opponent,
        player_color: Color,
        fen: str | None,
        earlier: Sequence[MoveRecord],
        anchor: Anchor,
    ) -> Game:
        """The game started at `fen`, standing at `anchor` after the moves `earlier`, which are trusted as stored.

        Moves after the anchor are then re-applied with `replay`. Raises ValueError if the anchor cannot follow
        `earlier` (another ply, side to move or move number).
        """
        game = cls(game_id, opponent=opponent, player_color=player_color, fen=fen)
        board, start = anchor.board(), game._start_board
        turn = start.turn if anchor.ply % 2 == 0 else not start.turn
        fullmove = start.fullmove_number + (anchor.ply + (start.turn == chess.BLACK)) // 2
        if anchor.ply != len(earlier) or board.turn != turn or board.fullmove_number != fullmove:
            raise ValueError(f"the anchor at ply {anchor.ply} does not follow the {len(earlier)} moves before it")
        game._board = board
        game._records = list(earlier)
        game._unstacked = game._anchor_ply = anchor.ply
        game._anchor = anchor
        game._captured = {"white": list(anchor.captured["white"]), "black": list(anchor.captured["black"])}
        return game

    # Actions

    def play(
        self,
        move: str | None = None,
        *,
        from_square: str | None = None,
        to_square: str | None = None,
        promotion: str | None = None,
    ) -> MoveRecord:
        """Plays a move given as SAN, UCI, or from/to squares (+ promotion piece q/r/b/n) and returns its record."""
        if self._resigned_by is not None or self._board.outcome(claim_draw=False) is not None:
            attempted = (
                move if from_square is None and to_square is None else f"{from_square}{to_square}{promotion or ''}"
            )
            raise game_over_error(self.state, attempted)
        parsed = parse_move(self._board, move, from_square=from_square, to_square=to_square, promotion=promotion)
        return self._push(parsed, record_move(self._board, parsed))

    def replay(self, uci: str, san: str | None = None) -> MoveRecord:
        """Re-applies a move from a stored record, trusting its SAN when given: checks legality, not the notation.

        Much cheaper than `play` (no parsing, no end-of-game test per move); a move that is illegal, or comes
        after a checkmate, stalemate or the 75-move rule, still raises.
        """
        try:
            move = chess.Move.from_uci(uci)
        except chess.InvalidMoveError:
            raise InvalidMove(uci, "a stored move must be UCI") from None
        board = self._board
        if not board.is_legal(move) or board.is_seventyfive_moves():
            if board.outcome(claim_draw=False) is not None:
                raise game_over_error(self.state, uci)
            raise IllegalMove(uci, color_name(board.turn), board.fen())
        record = MoveRecord(
            uci=uci,
            san=san or board.san(move),
            from_square=chess.square_name(move.from_square),
            to_square=chess.square_name(move.to_square),
        )
        return self._push(move, record)

    def _push(self, move: chess.Move, record: MoveRecord) -> MoveRecord:
        board = self._board
        taken = captured_piece(board, move)
        if taken is not None:
            self._captured[color_name(board.turn)].append(chess.piece_symbol(taken))
        if board.is_irreversible(move):
            self._anchor_ply = len(self._records) + 1
        board.push(move)
        self._records.append(record)
        self._state = None
        self._fen = None
        return record

    def resign(self, color: Color) -> None:
        """`color` gives up; the other side wins. A finished game cannot be resigned."""
        color = require_color(color)
        if self.state.is_over:
            raise game_over_error(self.state)
        self._resigned_by = color
        self._state = None

    def at_ply(self, ply: int) -> Game:
        """A new game holding only this game's first `ply` half-moves (no resignation): the game as it stood then."""
        if not 0 <= ply <= self.ply:
            raise ValueError(f"ply must be between 0 and {self.ply}, not {ply}.")
        earlier = Game(self._game_id, opponent=self._opponent, player_color=self._player_color, fen=self._start_fen)
        for record in self._records[:ply]:
            earlier.replay(record.uci, record.san)
        return earlier

    # State

    @property
    def state(self) -> GameState:
        if self._state is None:
            self._state = assess(self._board, self._resigned_by)
        return self._state

    @property
    def status(self) -> Status:
        return self.state.status

    @property
    def winner(self) -> Color | None:
        return self.state.winner

    @property
    def draw_reason(self) -> DrawReason | None:
        return self.state.draw_reason

    @property
    def claimable_draw(self) -> ClaimableDraw | None:
        return self.state.claimable_draw

    @property
    def is_over(self) -> bool:
        return self.state.is_over

    @property
    def resigned_by(self) -> Color | None:
        return self._resigned_by

    @property
    def is_engine_turn(self) -> bool:
        return not self.is_over and self.engine_color == self.turn

    # Position

    @property
    def board(self) -> chess.Board:
        """A copy of the board, the whole move stack included; changing it does not change the game.

        For a game resumed from an anchor this replays the moves before it once: prefer `recent_board`.
        """
        if self._unstacked:
            self._board = self.at_ply(self.ply)._board
            self._unstacked = 0
        return self._board.copy()

    @property
    def recent_board(self) -> chess.Board:
        """A copy of the board whose move stack holds at least the moves since the last irreversible one: all
        that the rules (and the engine's repetition checks) look at."""
        return self._board.copy()

    @property
    def anchor(self) -> Anchor:
        """Where this game could be resumed from: right after its last irreversible move (or its start)."""
        if self._anchor is None or self._anchor.ply != self._anchor_ply:
            self._anchor = anchor_at(self._board, self.ply - self._anchor_ply, self._anchor_ply, self._captured)
        return self._anchor

    @property
    def fen(self) -> str:
        if self._fen is None:
            self._fen = self._board.fen()
        return self._fen

    @property
    def turn(self) -> Color:
        return color_name(self._board.turn)

    @property
    def ply(self) -> int:
        """Half-moves played since this game's start position (not python-chess's fullmove-based ply)."""
        return len(self._records)

    @property
    def check(self) -> bool:
        return self._board.is_check()

    @property
    def legal_moves_uci(self) -> list[str]:
        if self.is_over:
            return []
        return sorted(move.uci() for move in self._board.legal_moves)

    # History

    @property
    def moves(self) -> tuple[MoveRecord, ...]:
        return tuple(self._records)

    @property
    def last_move(self) -> MoveRecord | None:
        return self._records[-1] if self._records else None

    @property
    def move_history_san(self) -> list[str]:
        return [record.san for record in self._records]

    @property
    def move_history_uci(self) -> list[str]:
        return [record.uci for record in self._records]

    @property
    def captured(self) -> dict[Color, list[str]]:
        """Pieces each side has taken: `captured["white"]` holds the black pieces white captured."""
        return {"white": list(self._captured["white"]), "black": list(self._captured["black"])}

    def pgn(self, *, white: str | None = None, black: str | None = None) -> str:
        """PGN text; player names default to "Engine" for the engine's side and "?" (unknown) otherwise."""
        names = {color: "Engine" if color == self.engine_color else "?" for color in ("white", "black")}
        return export_pgn(
            self._records,
            self.state,
            start=self._start_board,
            start_fen=self._start_fen,
            white=white or names["white"],
            black=black or names["black"],
        )

    def __repr__(self) -> str:
        return f"Game({self._game_id!r}, status={self.status!r}, ply={self.ply}, fen={self.fen!r})"
