"""The per-caller rate limit on requests that do work, kept in the state store so every container agrees.

What it applies to: every request that spends CPU or writes on a caller's behalf, counted first, before its
arguments are read: every tool call (each round of one too: a resumed call, a task's update), the answers a client
POSTs to a kept call's requests, `prompts/get`, `completion/complete`, reads of an app's resources, subscribe and
unsubscribe. Not lists, `ping`, widget templates (the answer cache serves them) or a waiting call's polls (at most
two reads and no write, bounded by the API's throttle). Each admitted request costs one conditional UpdateItem (a
refused one too: DynamoDB bills a failed condition as a write): a move is that plus its GetItem and PutItem. It
cannot fold into the move's own write, which comes after the engine has searched, nor into a read.

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
