"""GET /events as a plain HTTP client sees it: Server-Sent Events, one `data: {json}` line per seed-003 event."""

from __future__ import annotations

import httpx
from browser_support import CHATGPT, DevServer
from event_feed import read_events_until_done


def test_a_tool_call_streams_status_tool_start_tool_end_and_done_with_a_short_escaped_preview(
    dev_server: DevServer,
) -> None:
    message = "<script>alert('x')</script> & " + "long " * 100
    with httpx.Client(timeout=10) as http, http.stream("GET", f"{dev_server.base}/events") as stream:
        assert stream.status_code == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        lines = stream.iter_lines()
        assert next(lines) == ": connected"  # subscribed: what follows is this call's
        dev_server.call_tool("display_demo", {"message": message})
        events = read_events_until_done(lines)
    assert [e["type"] for e in events] == ["status", "tool_start", "tool_end", "status", "done"]
    start, end = events[1]["data"], events[2]["data"]
    assert start["name"] == end["name"] == "display_demo"
    assert start["tool_id"] == end["tool_id"] == events[4]["data"]["tool_id"]
    assert events[0]["data"]["description"] == "Preparing the display…"
    preview = end["result"]
    assert len(preview) <= 200
    assert "<" not in preview
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp;" in preview
    assert end["is_error"] is False


def test_a_failed_tool_call_reports_its_error_code_in_tool_end(dev_server: DevServer) -> None:
    with httpx.Client(timeout=10) as http, http.stream("GET", f"{dev_server.base}/events") as stream:
        lines = stream.iter_lines()
        next(lines)
        dev_server.call_tool("chess_move", {"gameId": "nope", "move": "e4"}, CHATGPT)
        events = read_events_until_done(lines)
    end = next(e["data"] for e in events if e["type"] == "tool_end")
    assert end["is_error"] is True
    assert end["error_code"] == "game_not_found"


def test_the_feed_refuses_a_host_not_allowed_so_a_dns_rebinding_page_cannot_read_it(dev_server: DevServer) -> None:
    # A page on attacker.example whose name now resolves to 127.0.0.1 sends its own name as Host, and no Origin
    # (to the browser its requests are same-origin).
    with httpx.Client(timeout=10) as http:
        with http.stream("GET", f"{dev_server.base}/events", headers={"host": "attacker.example:8000"}) as refused:
            refused.read()
        with http.stream("GET", f"{dev_server.base}/events") as allowed:
            assert allowed.status_code == 200
            assert next(allowed.iter_lines()) == ": connected"
    assert refused.status_code == 421
    assert refused.json()["error"] == "invalid_host"
    assert "text/event-stream" not in refused.headers["content-type"]


def test_the_feed_takes_the_same_origin_policy_as_mcp(dev_server: DevServer) -> None:
    # `make dev` lists every loopback origin (CORS_ORIGINS unset); any other page's origin is refused.
    listed = {"origin": "http://localhost:6274"}
    with httpx.Client(timeout=10) as http:
        with http.stream("GET", f"{dev_server.base}/events", headers=listed) as stream:
            assert stream.status_code == 200
            assert stream.headers["access-control-allow-origin"] == "http://localhost:6274"
            assert next(stream.iter_lines()) == ": connected"
        foreign = http.get(f"{dev_server.base}/events", headers={"origin": "https://evil.example"})
        mcp = http.post(f"{dev_server.base}/mcp", json={}, headers={"origin": "https://evil.example"})
        head = http.head(f"{dev_server.base}/events")
    assert foreign.status_code == mcp.status_code == 403
    assert "access-control-allow-origin" not in foreign.headers
    assert head.status_code == 200
    assert head.headers["content-type"].startswith("text/event-stream")
