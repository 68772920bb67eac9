"""JSON-RPC batches (2025-03-26 and older), once screened: each message served in order as if posted alone, but
for any `tools/call` after the first, which gets an error; the replies to its requests as one JSON array, 202 if it
held none. A refusal of the caller answers the whole POST."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import chain
from typing import Any, TypeGuard

from mcp_types import INVALID_REQUEST

from widget_mcp.transport.replies import HttpReply, Pending, error_body
from widget_mcp.transport.steps.exchange import Answer, valid_id
from widget_mcp.transport.steps.reply import batch_reply

ONE_CALL_PER_BATCH = "Invalid Request: a batch may hold one tools/call; send each other call in a POST of its own"


def serve_batch(messages: list[Any], serve: Callable[[Any], Answer]) -> HttpReply | Pending:
    """`serve(message)`: how one message of the batch is answered (as if posted alone)."""
    first_call = next((i for i, message in enumerate(messages) if _tool_call(message)), len(messages))

    def answer_to(position: int, message: Any) -> Answer:
        if position > first_call and _tool_call(message):
            # Each call may take the work one request is allowed: a second would double what one POST costs.
            return HttpReply(200, error_body(message["id"], INVALID_REQUEST, ONE_CALL_PER_BATCH))
        return serve(message)

    answers = (answer_to(position, message) for position, message in enumerate(messages))
    replies: list[HttpReply] = []
    for answer in answers:
        if answer is None or isinstance(answer, HttpReply):
            if _refuses_caller(answer):
                return answer
            replies += [answer] if answer is not None else []
            continue
        return _finish_batch(replies, answer, answers)
    return batch_reply(replies)


async def _finish_batch(replies: list[HttpReply], pending: Pending, rest: Iterator[Answer]) -> HttpReply:
    """`serve_batch` from the first message that needs the event loop on; the rest are read one by one, as there."""
    for answer in chain([pending], rest):
        reply = answer if answer is None or isinstance(answer, HttpReply) else await answer
        if _refuses_caller(reply):
            return reply
        if reply is not None:
            replies.append(reply)
    return batch_reply(replies)


def _tool_call(message: Any) -> TypeGuard[dict[str, Any]]:
    """Whether a batch's message is a `tools/call` request: the one kind whose work depends on its input."""
    return (
        isinstance(message, dict)
        and message.get("jsonrpc") == "2.0"
        and message.get("method") == "tools/call"
        and valid_id(message.get("id"))
    )


def _refuses_caller(answer: Answer) -> TypeGuard[HttpReply]:
    """A refusal of who is calling (401/403: a sign-in challenge, a host token refused), not of one message: the
    answer to the whole POST, batch or not, as HTTP authentication is the request's."""
    return isinstance(answer, HttpReply) and answer.status in (401, 403)
