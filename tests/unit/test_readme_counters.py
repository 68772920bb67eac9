"""The guide's "Atomic counters" example (docs/counters.md) runs as written against the in-memory store."""

from __future__ import annotations

from readme_snippets import section_python
from widget_mcp.storage.memory import InMemoryDocumentStore


def test_the_readme_counters_example_creates_a_poll_then_counts_votes_into_it() -> None:
    (code,) = section_python("Atomic counters")
    store = InMemoryDocumentStore(clock=lambda: 1_000.0)
    exec(code, {"store": store, "owner": "openai:alice", "now": 1_000})
    stored = store.get("openai:alice", "poll", "p1")
    assert stored is not None
    assert (stored.counts, stored.expires_at) == ({"yes": 2, "no": 1}, 87_400)
