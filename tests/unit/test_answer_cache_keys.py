"""The answer cache's keys and bounds (its answers are tested through the endpoint in tests/functional)."""

from __future__ import annotations

import json

from widget_mcp.transport.answer_cache import MAX_PARAMS_CHARS, AnswerCache, reply_body

ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def test_the_key_records_the_era_the_version_and_the_params_and_ignores_their_order() -> None:
    key = AnswerCache.key
    assert key("tools/list", None, version="2025-11-25", modern=False) != key(
        "tools/list", None, version="2025-06-18", modern=False
    )
    assert key("tools/list", None, version="2025-11-25", modern=False) != key(
        "tools/list", {}, version="2025-11-25", modern=False
    )
    read = {"uri": "ui://widget/a.html", "_meta": ENVELOPE}
    assert key("resources/read", read, version="2026-07-28", modern=True) == key(
        "resources/read", dict(reversed(read.items())), version="2026-07-28", modern=True
    )
    assert key("resources/read", read, version="2026-07-28", modern=True) != key(
        "resources/read", {**read, "uri": "ui://widget/b.html"}, version="2026-07-28", modern=True
    )


def test_methods_and_params_outside_what_it_keys_on_have_no_key() -> None:
    assert AnswerCache.key("tools/call", {"name": "x"}, version="2025-11-25", modern=False) is None
    assert AnswerCache.key("tools/list", {"cursor": "c"}, version="2025-11-25", modern=False) is None
    assert AnswerCache.key("tools/list", {"_meta": []}, version="2025-11-25", modern=False) is None
    assert AnswerCache.key("tools/list", {"_meta": {"progressToken": 1}}, version="2025-11-25", modern=False) is None
    long = {"uri": "ui://widget/" + "a" * MAX_PARAMS_CHARS}
    assert AnswerCache.key("resources/read", long, version="2025-11-25", modern=False) is None


def test_the_least_recently_used_answers_go_first_once_it_is_full() -> None:
    cache = AnswerCache(max_entries=3)
    keys = [("ping", False, v, None) for v in ("a", "b", "c", "d")]
    for key in keys[:3]:
        cache.keep(key, b"{}")
    assert cache.reply(keys[0], 1) is not None  # now the most recently used
    cache.keep(keys[3], b"{}")
    assert len(cache) == 3
    assert cache.reply(keys[1], 1) is None
    assert all(cache.reply(key, 1) is not None for key in (keys[0], keys[2], keys[3]))


def test_the_reply_is_what_json_dumps_makes_of_the_whole_message() -> None:
    result = {"tools": [{"name": "é", "n": 1.5}], "ok": True}
    encoded = json.dumps(result, separators=(",", ":"), ensure_ascii=False).encode()
    for rid in (1, -7, 2**80, 'a"b\\c', "ü🙂", ""):
        whole = {"jsonrpc": "2.0", "id": rid, "result": result}
        assert reply_body(rid, encoded) == json.dumps(whole, separators=(",", ":"), ensure_ascii=False).encode()
