"""What a kept call (resumption.py) may keep while it waits for answers: the part of its `_meta` the rerun reads,
each answer up to a budget, and how many one caller may keep at once; and the answers any request may carry back
(`inputResponses`), checked before anything validates them. SECURITY.md gives the bytes and writes."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from widget_mcp.toolkit.call import LOG_LEVEL_META
from widget_mcp.toolkit.principal import HOST_USER_HINT, OPENAI_SUBJECT

# What a kept call keeps of its request's `_meta`: what the rerun reads (who the caller is, its progress token, the
# log level it asked for, the host's conversation hints), each value at most _META_VALUE_LIMIT bytes of JSON. Anything
# else a client sends there is dropped, so a kept call costs its arguments, not whatever padding came with them.
KEPT_META = (
    OPENAI_SUBJECT,
    HOST_USER_HINT,
    "progressToken",
    LOG_LEVEL_META,
    "openai/session",
    "openai/locale",
    "openai/widgetSessionId",
)
_META_VALUE_LIMIT = 256
# The most answers one round may wait for (one item each): more keys than that is a handler's bug.
MAX_REQUESTS_PER_ROUND = 16
# The most of one answer a kept call keeps, as JSON: a form's answer budget (the forms app's 16 KB), and room for a
# sampled message. A larger answer is kept as the error saying so (the call then fails with it), never whole.
MAX_ANSWER_BYTES = 16 * 1024
# How many calls one caller (ownership.caller_key) may keep waiting for answers at once, by default (the setting
# QUOTA_WAITING_CALLS): each is an item of up to MAX_ITEM_BYTES, kept REQUEST_STATE_TTL_SECONDS; a call that ends
# frees its place an hour later, one left unanswered when its day in the ledger ends (COUNT_SLACK_SECONDS).
MAX_KEPT_CALLS_PER_CALLER = 32
KEPT_KIND = "kept_call"


def kept_meta(meta: object) -> dict[str, Any]:
    """The part of a call's `_meta` a kept call keeps (KEPT_META)."""
    if not isinstance(meta, Mapping):
        return {}
    kept = {}
    for key in KEPT_META:
        if key in meta and len(json.dumps(meta[key], default=str)) <= _META_VALUE_LIMIT:
            kept[key] = meta[key]
    return kept


def kept_answer(message: Mapping[str, Any]) -> dict[str, Any]:
    """What is kept of a client's response: its result or error, or past MAX_ANSWER_BYTES the error saying so."""
    answer = {"result": message["result"]} if "result" in message else {"error": message.get("error")}
    if len(json.dumps(answer, separators=(",", ":"), default=str)) > MAX_ANSWER_BYTES:
        text = f"The answer is larger than this server keeps ({MAX_ANSWER_BYTES // 1024} KB)"
        return {"error": {"code": -32600, "message": text}}
    return answer


def input_responses_problem(responses: object) -> str | None:
    """Why a request's `inputResponses` holds more than any round asks (MAX_REQUESTS_PER_ROUND answers, each at most
    MAX_ANSWER_BYTES of JSON), or None. Checked on the decoded body, before the caller is even admitted: validating
    and dumping a megabyte of answers costs the function tenths of a second."""
    if not isinstance(responses, Mapping):
        return None  # absent, or not an object: the request's own validation answers it
    if len(responses) > MAX_REQUESTS_PER_ROUND:
        return f"inputResponses holds {len(responses)} answers; a round asks at most {MAX_REQUESTS_PER_ROUND}"
    for key, value in responses.items():
        if len(key) > 200 or len(json.dumps(value, separators=(",", ":"), default=str)) > MAX_ANSWER_BYTES:
            return f"Each answer in inputResponses is at most {MAX_ANSWER_BYTES // 1024} KB of JSON, under a short key"
    return None
