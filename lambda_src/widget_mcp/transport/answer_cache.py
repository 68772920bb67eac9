"""Answers to the read-only MCP methods, kept from the SDK's own first answer and replayed byte for byte.

`initialize`, `server/discover`, `ping`, `tools/list`, `prompts/list`, `resources/list`,
`resources/templates/list` and `resources/read` (of widget templates and fixed resources; the endpoint asks which
URIs those are) are answered by our server from the runtime built once per process, so for one protocol era and
version their result depends only on the request's params. The endpoint asks this cache after its guards and the
sign-in gate; on a miss the SDK's kernel answers, and a successful result is kept, encoded, under a key made of the
method, the era, the connection's protocol version and the params themselves (canonical JSON). A hit is that
result with the caller's JSON-RPC id spliced in: the same bytes the uncached path encodes.

A request is only looked up when every params key is one the answer may depend on and that the key records:
`uri` for `resources/read`, `protocolVersion`, `capabilities` and `clientInfo` for `initialize`, and in `_meta`
only the 2026-07-28 envelope (protocol version, client info, client capabilities). Anything else (a `cursor`,
unknown params, other `_meta` such as a progress token or host hints) goes to the SDK every time. Errors are never
kept, so a bad request is answered by the SDK each time it comes.

The server's answers to these methods must not change while the process lives; `clear` forgets every answer for
whatever does change them (nothing in this project does).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from mcp_types import CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY

# The methods answered from the cache, and the params keys each one's key records.
CACHED_PARAMS: Mapping[str, frozenset[str]] = {
    "initialize": frozenset({"protocolVersion", "capabilities", "clientInfo", "_meta"}),
    "server/discover": frozenset({"_meta"}),
    "ping": frozenset({"_meta"}),
    "tools/list": frozenset({"_meta"}),
    "prompts/list": frozenset({"_meta"}),
    "resources/list": frozenset({"_meta"}),
    "resources/templates/list": frozenset({"_meta"}),
    "resources/read": frozenset({"uri", "_meta"}),
}
ENVELOPE_KEYS = frozenset({PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY})
# Params longer than this as JSON are not worth a key (real clients send a few hundred bytes).
MAX_PARAMS_CHARS = 4096
# Distinct keys kept (least recently used first out): each client kind's envelope makes its own keys.
MAX_ENTRIES = 256

Key = tuple[str, bool, str, str | None]


# Built once: `json.dumps` with options builds a new encoder on every call.
_ANSWER_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def encode(value: Any) -> bytes:
    """Compact JSON, non-ASCII kept as UTF-8: how the endpoint encodes every answer."""
    return _ANSWER_JSON.encode(value).encode()


def reply_body(request_id: str | int, result: bytes) -> bytes:
    """`{"jsonrpc":"2.0","id":…,"result":…}` around an encoded result: the bytes `encode` gives for that dict."""
    rid = str(request_id).encode() if isinstance(request_id, int) else encode(request_id)
    return b'{"jsonrpc":"2.0","id":' + rid + b',"result":' + result + b"}"


class AnswerCache:
    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self._max_entries = max_entries
        self._answers: OrderedDict[Key, bytes] = OrderedDict()
        # One copy of each distinct answer, however many keys (client envelopes) share it.
        self._distinct: dict[bytes, bytes] = {}

    @staticmethod
    def key(method: str, params: Mapping[str, Any] | None, *, version: str, modern: bool) -> Key | None:
        """The key a request's answer is kept under, or None when the request must go to the server."""
        allowed = CACHED_PARAMS.get(method)
        if allowed is None:
            return None
        if not params:
            return (method, modern, version, None if params is None else "{}")
        if not allowed.issuperset(params):
            return None
        meta = params.get("_meta")
        if meta is not None and not (isinstance(meta, dict) and ENVELOPE_KEYS.issuperset(meta)):
            return None
        text = json.dumps(params, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return (method, modern, version, text) if len(text) <= MAX_PARAMS_CHARS else None

    def reply(self, key: Key, request_id: str | int) -> bytes | None:
        """The whole JSON-RPC answer for `key` with this id, if the server answered it before."""
        result = self._answers.get(key)
        if result is None:
            return None
        self._answers.move_to_end(key)
        return reply_body(request_id, result)

    def keep(self, key: Key, result: bytes) -> None:
        """Remember the server's encoded result for `key`."""
        if len(self._distinct) >= self._max_entries:
            self._distinct.clear()
        self._answers[key] = self._distinct.setdefault(result, result)
        self._answers.move_to_end(key)
        while len(self._answers) > self._max_entries:
            self._answers.popitem(last=False)

    def clear(self) -> None:
        self._answers.clear()
        self._distinct.clear()

    def __len__(self) -> int:
        return len(self._answers)
