"""The per-caller rate limit: a fixed window of calls per caller, counted in the state store."""

from __future__ import annotations

import pytest
from clocks import mid_window
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.toolkit.call import ToolCall
from widget_mcp.toolkit.errors import RateLimited
from widget_mcp.toolkit.limits import CallLimiter, RateLimit
from widget_mcp.toolkit.principal import ANONYMOUS, Principal


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_caller_over_its_limit_is_told_the_seconds_left_in_its_window_then_served_in_the_next() -> None:
    clock = Clock(1_000_040.5)  # 20.5 s into a 60 s window (1,000,020 is a multiple of 60)
    limiter = CallLimiter(InMemoryDocumentStore(clock=clock), RateLimit(calls=2, window_seconds=60), clock)
    limiter.admit("openai:alice")
    limiter.admit("openai:alice")

    with pytest.raises(RateLimited) as refused:
        limiter.admit("openai:alice")

    assert refused.value.retry_after == 40  # rounded up: retrying after it is always in the next window
    assert refused.value.details == {"retryAfter": 40}
    limiter.admit("openai:bob")
    clock.now += 40
    limiter.admit("openai:alice")


def test_a_call_counts_once_however_often_its_handler_asks_for_its_owner() -> None:
    limiter = CallLimiter(InMemoryDocumentStore(), RateLimit(calls=1, window_seconds=60), mid_window(60))
    call = ToolCall(tool="chess_move", principal=Principal("openai", "alice"), limiter=limiter)
    call.owner("Games")
    call.owner("Games")
    second = ToolCall(tool="chess_move", principal=Principal("openai", "alice"), limiter=limiter)

    with pytest.raises(RateLimited):
        second.owner("Games")


def test_callers_without_identity_are_counted_by_their_source_and_users_by_their_key() -> None:
    assert ToolCall(tool="t", principal=ANONYMOUS, source="203.0.113.9").caller == "source:203.0.113.9"
    assert ToolCall(tool="t", principal=ANONYMOUS).caller == "source:unknown"
    assert ToolCall(tool="t", principal=Principal("oauth", "u1"), source="203.0.113.9").caller == "oauth:u1"
