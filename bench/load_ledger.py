"""The load run's ledger: what the server said it accepted, and the check that the stored games and forms hold
exactly that (`python -m bench.load`). Pure: the driver fills it, the read-back comes from the server's own tools.

A move is *lost* when the server accepted it but its game does not hold it at its ply; a move is *doubled* when
two calls were accepted at one ply of a game (a race both sides won), or when the stored game holds plies no
accepted call accounts for (a move applied twice). An answer is *lost* when a form does not hold a step's
accepted answers, and *doubled* when two different answers were accepted for one step (a race both sides won).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class AcceptedMove:
    game_id: str
    ply: int  # the ply the move was played at (its expectedPly)
    uci: str
    replied: bool  # the engine's reply was played in the same call (the result's ply is ply + 2)


@dataclass(frozen=True)
class AcceptedAnswer:
    form_id: str
    step: int
    data: dict[str, Any]


@dataclass
class Ledger:
    moves: list[AcceptedMove] = field(default_factory=list)
    answers: list[AcceptedAnswer] = field(default_factory=list)
    # id -> the subject that owns it (the read-back asks as the owner)
    games: dict[str, str] = field(default_factory=dict)
    forms: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ReadBack:
    """What the server holds: each game's moves (UCI, from ply 0), and each form's answered steps and, once every
    step is answered, its answers (None while it is pending: the server shows only how many steps are answered)."""

    games: dict[str, list[str]]
    forms: dict[str, tuple[int, dict[str, Any] | None]]


@dataclass(frozen=True)
class Verdict:
    moves: int
    answers: int
    lost_moves: list[str]
    doubled_moves: list[str]
    lost_answers: list[str]
    doubled_answers: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.lost_moves or self.doubled_moves or self.lost_answers or self.doubled_answers)

    def summary(self) -> str:
        # `lost N, doubled N` is the public line (ARCHITECTURE.md, Operations); the split by kind follows it.
        lost = len(self.lost_moves) + len(self.lost_answers)
        doubled = len(self.doubled_moves) + len(self.doubled_answers)
        return (
            f"ledger: {self.moves} accepted moves, {self.answers} accepted answers; lost {lost}, doubled {doubled} "
            f"({len(self.lost_moves)} moves lost, {len(self.doubled_moves)} moves doubled, "
            f"{len(self.lost_answers)} answers lost, {len(self.doubled_answers)} answers doubled): "
            f"{'clean' if self.clean else 'NOT CLEAN'}"
        )


def check(ledger: Ledger, held: ReadBack) -> Verdict:
    lost: list[str] = []
    doubled: list[str] = []
    # The same move sent twice at one ply is one move (the second is answered as a retry of the first, as the
    # contract says); two different moves accepted at one ply is a race both sides won.
    per_ply = Counter((m.game_id, m.ply) for m in {(m.game_id, m.ply, m.uci): m for m in ledger.moves}.values())
    doubled += [f"{game} ply {ply}: {n} different moves accepted" for (game, ply), n in per_ply.items() if n > 1]
    accounted: dict[str, set[int]] = {game: set() for game in ledger.games}
    for move in ledger.moves:
        history = held.games.get(move.game_id)
        if history is None or len(history) <= move.ply or history[move.ply] != move.uci:
            found = "no game" if history is None else (history[move.ply] if len(history) > move.ply else "nothing")
            lost.append(f"{move.game_id} ply {move.ply}: {move.uci} accepted, {found} stored")
        plies = accounted.setdefault(move.game_id, set())
        plies.add(move.ply)
        if move.replied:
            plies.add(move.ply + 1)
    for game in ledger.games:
        history = held.games.get(game)
        if history is None:
            continue
        extra = [ply for ply in range(len(history)) if ply not in accounted[game]]
        doubled += [f"{game} ply {ply}: {history[ply]} stored, no accepted call played it" for ply in extra]
    lost_answers = []
    for answer in ledger.answers:
        answered, stored = held.forms.get(answer.form_id, (0, None))
        kept = answered > answer.step and (stored is None or all(stored.get(k) == v for k, v in answer.data.items()))
        if not kept:
            lost_answers.append(f"{answer.form_id} step {answer.step}: {answer.data} accepted, {stored} stored")
    per_step: dict[tuple[str, int], set[str]] = {}
    for answer in ledger.answers:
        per_step.setdefault((answer.form_id, answer.step), set()).add(repr(sorted(answer.data.items())))
    doubled_answers = [
        f"{form} step {step}: {len(d)} answers accepted" for (form, step), d in per_step.items() if len(d) > 1
    ]
    return Verdict(len(ledger.moves), len(ledger.answers), lost, doubled, lost_answers, doubled_answers)
