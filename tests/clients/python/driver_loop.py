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


# The MCP Apps extension a host declares when it shows widgets (SEP-1865), and its settings.
APPS_EXTENSION = "io.modelcontextprotocol/ui"
APPS_SETTINGS = {"mimeTypes": ["text/html;profile=mcp-app"]}


class FormUser:
    """The user of a host that shows the server's forms (as node/driver_loop.mjs's FormUser): each call names the
    answer it gives (`expect`); what the server asked is kept (`asked`), with how often the client resumed the
    call's stream (`resumed`: GETs with Last-Event-ID the server answered, seen by `saw`, the HTTP client's response
    hook). An answer with `afterResumptions: n` is given once the client has resumed n times; `{error}` is the host
    failing to answer (`elicit` raises it, the driver sends it as the client's error). The statuses of resumptions
    made once the call has settled are kept (`after_settled`)."""

    def __init__(self) -> None:
        self.asked: list[dict[str, Any]] = []
        self.answer: dict[str, Any] | None = None
        self.resumed = 0
        self.settled = False
        self.after_settled: list[int] = []
        self._changed = asyncio.Event()

    def expect(self, answer: dict[str, Any] | None) -> None:
        self.asked, self.answer, self.resumed, self.settled, self.after_settled = [], answer, 0, False, []

    def settle(self) -> None:
        self.settled = True

    def saw(self, method: str, headers: Any, status: int) -> None:
        if method == "GET" and "last-event-id" in headers:
            self.resumed += 1
            if self.settled:
                self.after_settled.append(status)
            self._changed.set()
            self._changed = asyncio.Event()

    async def _until(self, done: Callable[[], bool], within: float | None = None) -> None:
        deadline = None if within is None else asyncio.get_running_loop().time() + within
        while not done():
            left = None if deadline is None else deadline - asyncio.get_running_loop().time()
            if left is not None and left <= 0:
                return
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except TimeoutError:
                return

    async def elicit(self, params: dict[str, Any]) -> dict[str, Any]:
        """The answer (an ElicitResult as a dict), once it is due; raises the host's failure to answer."""
        self.asked.append(params)
        if self.answer is None:
            raise RuntimeError("the test gave no answer to elicitation/create")
        answer = dict(self.answer)
        after, error = answer.pop("afterResumptions", 0), answer.pop("error", None)
        await self._until(lambda: self.resumed >= after)
        if error:
            raise RuntimeError(error)
        return answer

    async def seen(self, response: Any) -> None:
        """The HTTP client's response hook: counts the client's resumptions (`saw`)."""
        self.saw(response.request.method, response.request.headers, response.status_code)

    def elicitation_callback(self, types: Any) -> Callable[[Any, Any], Awaitable[Any]]:
        """The mcp SDK's `elicitation_callback` (`types`: that SDK version's types module): the answer once it is due,
        or the host's failure to answer as the client's error."""

        async def elicit(context: Any, params: Any) -> Any:
            try:
                return types.ElicitResult(**await self.elicit(wire(params)))
            except RuntimeError as failed:
                return types.ErrorData(code=types.INTERNAL_ERROR, message=str(failed))

        return elicit

    async def resumed_after_settling(self, within_ms: int) -> list[int]:
        await self._until(lambda: bool(self.after_settled), within_ms / 1000)
        return list(self.after_settled)
