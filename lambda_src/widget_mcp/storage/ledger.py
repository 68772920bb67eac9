"""A holder's ledger of live documents of one kind: what the per-holder quota counts, shared by both adapters.

Why a ledger and not a counter: documents leave by TTL expiry, which tells nobody, so a bare counter would only
ever grow. The ledger maps each counted document id to the time it stops counting (a slack past its expiry), so
expired entries drop out when the ledger is next read, with no clean-up job and no dependency on when DynamoDB's
TTL sweep runs. It is one small item per holder and kind, read before a create and written in the same
transaction as the document, conditional on the version read: two creates racing for the last place cannot both
land, and a create never lands without its count (nor the count without the document).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from widget_mcp.storage.documents import ENDED_COUNT_SECONDS, QuotaFull

# A create that loses the race for the ledger (another write for the same holder landed since it was read) reads
# it again after a jittered, exponentially growing pause, so a burst of creates from one holder (every user behind
# one address shares a ledger) lands one after another instead of retrying in lockstep. After LEDGER_ATTEMPTS
# losses it gives up with StoreBusy: at most about 4.6 s of pauses (half that on average), far inside the function's
# timeout.
LEDGER_ATTEMPTS = 16
LEDGER_BACKOFF_SECONDS = 0.01
LEDGER_BACKOFF_CAP_SECONDS = 0.4


def ledger_backoff(lost: int, rng: Callable[[], float] = random.random) -> float:
    """The pause before the next read after `lost` (1, 2, ...) lost races: uniform in [0, min(cap, base x 2^lost))
    ("full jitter"), so racing writers spread out rather than colliding again."""
    return rng() * min(LEDGER_BACKOFF_CAP_SECONDS, LEDGER_BACKOFF_SECONDS * 2.0**lost)


@dataclass(frozen=True)
class Ledger:
    """`version` 0: no ledger is stored yet. `live`: document id → counted until (epoch seconds)."""

    holder: str
    kind: str
    version: int = 0
    live: dict[str, int] = field(default_factory=dict)

    def _current(self, now: int) -> dict[str, int]:
        return {doc_id: until for doc_id, until in self.live.items() if until > now}

    def admit(self, doc_id: str, until: int, limit: int, now: int) -> Ledger:
        """The ledger with `doc_id` counted; QuotaFull if `limit` documents are live already."""
        live = self._current(now)
        if len(live) >= limit:
            raise QuotaFull(self.holder, self.kind, limit, min(live.values()))
        return Ledger(self.holder, self.kind, self.version + 1, {**live, doc_id: until})

    def recount(self, doc_id: str, until: int, now: int) -> Ledger:
        """The ledger with `doc_id` counted until `until` (a replace moved its expiry); never refused: the document
        was admitted when it was created."""
        return Ledger(self.holder, self.kind, self.version + 1, {**self._current(now), doc_id: until})

    def release(self, doc_id: str, now: int) -> Ledger:
        """The ledger with `doc_id` counted for ENDED_COUNT_SECONDS more at the most: the document stopped being
        live, and its place is free an hour later (sooner if it was counted for less)."""
        live = self._current(now)
        if doc_id in live:
            live[doc_id] = min(live[doc_id], now + ENDED_COUNT_SECONDS)
        return Ledger(self.holder, self.kind, self.version + 1, live)

    def forget(self, doc_id: str, now: int) -> Ledger:
        """The ledger without `doc_id`: the document was deleted, so nothing of it is left to count."""
        live = self._current(now)
        live.pop(doc_id, None)
        return Ledger(self.holder, self.kind, self.version + 1, live)

    @property
    def expires_at(self) -> int:
        """When the ledger itself may go: once nothing in it counts any more."""
        return max(self.live.values(), default=0)
