"""Reading make dev's event feed (`GET /events`, server-sent events) in tests."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any


def read_events_until_done(lines: Iterator[str]) -> list[dict[str, Any]]:
    """The feed's events, in order, up to and including the `done` that ends one tool call."""
    events: list[dict[str, Any]] = []
    for line in lines:
        if line.startswith("data: "):
            events.append(json.loads(line.removeprefix("data: ")))
            if events[-1]["type"] == "done":
                return events
    raise AssertionError(f"the stream ended before a done event: {events}")
