"""The line protocol every client driver speaks (tests/clients/driver.py is the other end): one JSON command per
line on stdin, one JSON answer per line on stdout, in order. An exception a client raises is an answer too
({ok: false, error}): the tests assert on it, the driver keeps running. Standard library only: the drivers run in
environments of their own (mcp 1.x, fastmcp) as well as the project's."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

Handler = Callable[..., Awaitable[dict[str, Any]]]


def _describe(error: BaseException) -> dict[str, Any]:
    code = getattr(getattr(error, "error", None), "code", None)
    return {"type": type(error).__name__, "message": str(error), "code": code if isinstance(code, int) else None}


async def serve_commands(*handlers: Handler) -> None:
    """Answers each command with the handler named by its `op`, called with the command's other fields, one at a
    time, until stdin closes.

    Commands run in this one task, so a client's context entered by `connect` is left by `close` in the same task,
    as anyio's cancel scopes require."""
    by_op = {handler.__name__: handler for handler in handlers}
    loop = asyncio.get_running_loop()
    while line := await loop.run_in_executor(None, sys.stdin.readline):
        if not line.strip():
            continue
        try:
            command = json.loads(line)
            handler = by_op[command.pop("op")]
            answer = {"ok": True, **await handler(**command)}
        except Exception as exc:
            answer = {"ok": False, "error": _describe(exc)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


def wire(model: Any) -> Any:
    """A pydantic model (mcp 1.x and 2.x alike) as the wire spells it."""
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)
