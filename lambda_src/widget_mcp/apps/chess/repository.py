"""Games on the document store: one document per game, the compact record plus what listing and retries need.

The body is `{"game": GameRecord, "summary": {...}, "analysis": {...} | null}`. The summary repeats a few
derived fields so a listing needs no replay; the record stays the source of truth.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from widget_mcp import Document, DocumentStore, StateOwner, capability_id, time_ordered_id
from widget_mcp.apps.chess.domain import Game, decode, encode

KIND = "game"
DAY = 86_400


@dataclass(frozen=True)
class RetentionPolicy:
    """Finished games expire some days after their end; unfinished ones some days after their last move."""

    finished_days: int = 30
    idle_days: int = 90

    def expires_at(self, game: Game, now: int) -> int:
        return now + DAY * (self.finished_days if game.is_over else self.idle_days)


@dataclass(frozen=True)
class StoredGame:
    game: Game
    version: int
    analysis: dict[str, Any] | None
    document: Document


@dataclass(frozen=True)
class GameSummary:
    game_id: str
    status: str
    winner: str | None
    turn: str
    ply: int
    opponent: str
    player_color: str
    fen: str
    updated_at: int


def _summary(game: Game) -> dict[str, Any]:
    return {"status": game.status, "winner": game.winner, "turn": game.turn, "ply": game.ply, "fen": game.fen}


def _body(game: Game, analysis: dict[str, Any] | None) -> dict[str, Any]:
    return {"game": dict(encode(game)), "summary": _summary(game), "analysis": analysis}


class GameRepository:
    """Loads and saves games for one owner at a time; every save is conditional on the version read.

    An identified owner's games share its partition and have time-ordered ids (for listing); a game made
    without identity gets a capability id and a partition of its own. With a `quota`, each new game counts
    against its owner's (a caller without identity: its source address's) live games: QuotaFull past it. A game
    stops counting when it ends (checkmate, stalemate, a draw, resignation), or at the latest when it expires.
    """

    def __init__(
        self,
        store: DocumentStore,
        retention: RetentionPolicy | None = None,
        clock: Callable[[], float] = time.time,
        quota: int | None = None,
    ) -> None:
        self._store = store
        self._retention = retention or RetentionPolicy()
        self._clock = clock
        self._quota = quota

    def new_id(self, owner: StateOwner) -> str:
        return capability_id() if owner.by_capability else time_ordered_id(int(self._clock() * 1000))

    def load(self, owner: StateOwner, game_id: str) -> StoredGame | None:
        doc = self._store.get(owner.partition(game_id), KIND, game_id)
        return None if doc is None else self.from_document(doc)

    @staticmethod
    def from_document(doc: Document) -> StoredGame:
        analysis = doc.body.get("analysis")
        return StoredGame(decode(doc.body["game"]), doc.version, analysis if isinstance(analysis, dict) else None, doc)

    def create(self, owner: StateOwner, game: Game, analysis: dict[str, Any] | None) -> StoredGame:
        now = int(self._clock())
        doc = Document(
            kind=KIND,
            doc_id=game.game_id,
            body=_body(game, analysis),
            version=1,
            created_at=now,
            updated_at=now,
            expires_at=self._retention.expires_at(game, now),
        )
        if self._quota is not None:
            doc = doc.counted_for(owner.quota_holder)
        self._store.create(owner.partition(game.game_id), doc, quota=self._quota)
        return StoredGame(game, doc.version, analysis, doc)

    def save(self, owner: StateOwner, stored: StoredGame, game: Game, analysis: dict[str, Any] | None) -> StoredGame:
        """Replace the game read as `stored`; raises VersionConflict (with the current document) if it changed."""
        now = int(self._clock())
        # A game that has ended is no longer live: its place in its owner's quota frees an hour after this write.
        doc = stored.document.next(
            _body(game, analysis), now=now, expires_at=self._retention.expires_at(game, now), live=not game.is_over
        )
        self._store.replace(owner.partition(doc.doc_id), doc, expected_version=stored.version)
        return StoredGame(game, doc.version, analysis, doc)

    def newest(self, owner: StateOwner, limit: int) -> list[GameSummary]:
        if not owner.can_list:
            return []
        summaries = []
        for doc in self._store.newest(owner.partition(""), KIND, limit):
            record, summary = doc.body["game"], doc.body["summary"]
            summaries.append(
                GameSummary(
                    game_id=doc.doc_id,
                    status=summary["status"],
                    winner=summary["winner"],
                    turn=summary["turn"],
                    ply=summary["ply"],
                    opponent=record["opponent"],
                    player_color=record["color"],
                    fen=summary["fen"],
                    updated_at=doc.updated_at,
                )
            )
        return summaries
