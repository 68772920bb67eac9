"""A holder's ledger of live documents of one kind: what the per-holder quota counts, shared by both adapters.

Why a ledger and not a counter: documents leave by TTL expiry, which tells nobody, so a bare counter would only
ever grow. The ledger maps each counted document id to the time it stops counting (a slack past its expiry), so
expired entries drop out when the ledger is next read, with no clean-up job and no dependency on when DynamoDB's
TTL sweep runs. It is one small item per holder and kind, read before a create and written in the same
transaction as the document, conditional on the version read: two creates racing for the last place cannot both
land, and a create never lands without its count (nor the count without the document).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from widget_mcp.storage.documents import QuotaFull

# A create that keeps losing the race for the ledger gives up after this many reads (then StoreUnavailable):
# each loss means another create for the same holder landed meanwhile.
LEDGER_ATTEMPTS = 4


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

    @property
    def expires_at(self) -> int:
        """When the ledger itself may go: once nothing in it counts any more."""
        return max(self.live.values(), default=0)
