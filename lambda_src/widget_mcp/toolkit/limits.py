"""The per-caller rate limit on calls that use stored state, kept in the state store so every container agrees.

What it applies to: calls of tools that ask for their caller's state (`ToolCall.owner`), checked at that moment,
before anything is read or written. Those are the calls that cost storage reads and writes, engine searches and
answer validation; `tools/list`, `resources/*` and the like come from the answer cache and never write, and a tool
that keeps no state costs milliseconds of CPU that the API's throttle and the function's reserved concurrency
bound. Each admitted call costs one conditional UpdateItem (a refused one too: DynamoDB bills a failed condition
as a write): a move is that plus its GetItem and PutItem. It cannot fold into the move's own write, which comes
after the engine has searched, nor into a read.

Who the caller is: an identified principal by its key; a caller without identity by its source address (per /64
for IPv6), so capability ids, which anyone can mint, do not reset the count. A fixed window per caller: simple and
one write, at the price of allowing up to twice the limit across a window's edge.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from widget_mcp.toolkit.errors import RateLimited


class Counters(Protocol):
    """The part of the state store the limiter uses (storage.documents.DocumentStore.hit)."""

    def hit(self, counter: str, window: str, limit: int, expires_at: int) -> bool: ...


@dataclass(frozen=True)
class RateLimit:
    calls: int
    window_seconds: int


class CallLimiter:
    def __init__(self, counters: Counters, limit: RateLimit, clock: Callable[[], float] = time.time) -> None:
        self._counters = counters
        self._limit = limit
        self._clock = clock

    def admit(self, caller: str) -> None:
        """Count one call for `caller`; RateLimited (with the seconds until its window ends) past the limit."""
        now = self._clock()
        width = self._limit.window_seconds
        window = int(now // width)
        ends = (window + 1) * width
        # The window's counter outlives its end by a window, then DynamoDB's TTL removes it.
        if not self._counters.hit(caller, str(window), self._limit.calls, ends + width):
            raise RateLimited(self._limit.calls, width, max(1, math.ceil(ends - now)))
