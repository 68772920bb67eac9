"""Drives the SDK kernel's coroutine for one request by hand, for requests that never wait.

On Lambda a sync tool runs inline, so serving its `tools/call` never waits on anything: the coroutine runs to its
end on its first step. Stepping it directly saves what the event loop costs each call (a task, two turns of the
loop, its bookkeeping) and `serve_one`'s shielded cancel scope, which guards a teardown nothing here can cancel.
The step runs in a copy of the caller's context, as a task would run it. Should the coroutine wait after all,
`Suspended` hands what is left of it to the caller, to be awaited on the loop.
"""

from __future__ import annotations

import contextvars
import logging
import types
from collections.abc import Awaitable, Coroutine, Generator
from typing import Any, TypeVar

from mcp.server.connection import Connection

logger = logging.getLogger(__name__)

T = TypeVar("T")


class Suspended(Exception):
    """The coroutine waited on something; `remainder` finishes it when awaited on the event loop."""

    def __init__(self, remainder: Coroutine[Any, Any, Any]) -> None:
        super().__init__("the request waited on the event loop")
        self.remainder = remainder


def run_inline(request: Awaitable[T], connection: Connection) -> T:
    """Run `request` (the kernel's `on_request`) to its end, then unwind the connection's exit stack as
    `serve_one` does; raises what the request raises, or `Suspended`."""
    exchange = _exchange(request, connection)
    context = contextvars.copy_context()
    try:
        waiting = context.run(exchange.send, None)
    except StopIteration as done:
        result: T = done.value
        return result
    raise Suspended(_finish(exchange, waiting, context))


async def _exchange(request: Awaitable[T], connection: Connection) -> T:
    try:
        return await request
    finally:
        try:
            await connection.exit_stack.aclose()
        except Exception:
            logger.exception("connection exit_stack cleanup raised")


async def _finish(exchange: Coroutine[Any, Any, T], waiting: Any, context: contextvars.Context) -> T:
    return await _resume(exchange, waiting, context)


@types.coroutine
def _resume(exchange: Coroutine[Any, Any, T], waiting: Any, context: contextvars.Context) -> Generator[Any, Any, T]:
    """`yield from exchange` for a coroutine already started, whose first wait is `waiting`: what it waits on
    goes to the task running this, and what the task sends or throws goes back to it, in its own context."""
    while True:
        try:
            try:
                sent = yield waiting
            except BaseException as exc:  # noqa: BLE001 - forwarded to the coroutine, as `yield from` would
                waiting = context.run(exchange.throw, exc)
            else:
                waiting = context.run(exchange.send, sent)
        except StopIteration as done:
            result: T = done.value
            return result
