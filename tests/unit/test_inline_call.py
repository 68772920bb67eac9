"""Driving a request's coroutine by hand: it runs to its end in a context of its own and unwinds the connection's
exit stack; one that waits after all is finished on the event loop with the same result."""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any

import pytest
from widget_mcp.transport.dispatch_context import envelope_connection
from widget_mcp.transport.inline_call import Suspended, run_inline

SEEN: contextvars.ContextVar[str] = contextvars.ContextVar("seen", default="caller")


def connection_with_cleanup(log: list[str]) -> Any:
    connection = envelope_connection("2025-11-25", None, None)

    async def cleanup() -> None:
        log.append("closed")

    connection.exit_stack.push_async_callback(cleanup)
    return connection


def test_a_coroutine_that_never_waits_returns_its_result_in_its_own_context_and_closes_the_connection() -> None:
    log: list[str] = []

    async def request() -> str:
        SEEN.set("request")
        log.append("ran")
        return "done"

    assert run_inline(request(), connection_with_cleanup(log)) == "done"
    assert log == ["ran", "closed"]
    assert SEEN.get() == "caller"  # what the request set stays in its own context, as in a task


def test_what_the_request_raises_is_raised_after_the_connection_closes() -> None:
    log: list[str] = []

    async def request() -> str:
        raise LookupError("no such thing")

    with pytest.raises(LookupError):
        run_inline(request(), connection_with_cleanup(log))
    assert log == ["closed"]


async def test_a_coroutine_that_waits_is_finished_on_the_loop_with_its_context() -> None:
    log: list[str] = []
    loop = asyncio.get_running_loop()
    later = loop.create_future()

    async def request() -> str:
        SEEN.set("request")
        await asyncio.sleep(0)
        value: str = await later
        return f"{value} in {SEEN.get()}"

    with pytest.raises(Suspended) as suspended:
        run_inline(request(), connection_with_cleanup(log))
    assert log == []
    loop.call_soon(later.set_result, "woken")
    assert await suspended.value.remainder == "woken in request"
    assert log == ["closed"]


async def test_a_waiting_coroutine_cancelled_on_the_loop_sees_the_cancellation() -> None:
    log: list[str] = []
    never = asyncio.get_running_loop().create_future()

    async def request() -> str:
        try:
            await never
        except asyncio.CancelledError:
            log.append("cancelled")
            raise
        return "unreachable"

    with pytest.raises(Suspended) as suspended:
        run_inline(request(), connection_with_cleanup(log))
    task = asyncio.ensure_future(suspended.value.remainder)
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert log == ["cancelled", "closed"]


def test_the_connection_without_an_envelope_is_the_one_the_sdk_builds() -> None:
    from mcp.server.connection import Connection

    ours = envelope_connection("2025-06-18", None, None)
    sdk = Connection.from_envelope("2025-06-18", None, None)
    assert (ours.outbound, ours.protocol_version, ours.client_params, ours.client_capabilities) == (
        sdk.outbound,
        sdk.protocol_version,
        sdk.client_params,
        sdk.client_capabilities,
    )
    assert ours.initialized.is_set()
    assert ours.initialize_accepted
    assert sdk.initialize_accepted
    assert not ours.has_standalone_channel
