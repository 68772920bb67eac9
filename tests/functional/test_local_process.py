"""The local server as tests and benchmarks run it (widget_mcp.local.process): its output is read as it comes, so a
server that logs more than a pipe holds keeps answering, and the last lines stay readable, up to a bound."""

from __future__ import annotations

import io
from typing import Any

import httpx
from widget_mcp.local.process import READY, ServerOutput, local_server

PIPE_BYTES = 64 * 1024  # Linux's default pipe buffer
MAX_CALLS = 5000


def _call(http: httpx.Client, base: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    reply = http.post(f"{base}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    reply.raise_for_status()
    answer: dict[str, Any] = reply.json()
    return answer


def test_a_server_that_logs_more_than_a_pipe_holds_keeps_answering() -> None:
    with local_server("local-process-state", keep=MAX_CALLS) as server:
        headers = {"accept": "application/json, text/event-stream"}
        with httpx.Client(headers=headers, timeout=10) as http:
            tools = _call(http, server.base, "tools/list", {})["result"]["tools"]
            # Arguments the tool's schema refuses: each call is answered with an error and logs a line.
            tool = next(t["name"] for t in tools if t["inputSchema"].get("required"))
            logged = 0
            calls = 0
            while logged <= PIPE_BYTES + PIPE_BYTES // 4:
                assert calls < MAX_CALLS, f"{calls} calls logged only {logged} bytes"
                answer = _call(http, server.base, "tools/call", {"name": tool, "arguments": {}})
                assert answer["result"]["isError"], answer
                calls += 1
                logged = len(server.log.since(0).encode())  # lines may trail their answers: not summed
            assert http.get(f"{server.base}/healthz").json()["status"] == "ok"
        assert tool in server.output[-1]


def test_the_output_keeps_the_banner_and_the_last_lines_and_says_how_many_it_dropped() -> None:
    printed = io.StringIO("starting\n" + f"{READY} to stop\n" + "".join(f"line {n}\n" for n in range(10)))
    log = ServerOutput(printed, keep=3)
    assert log.wait_for_banner(timeout=10)
    log.wait_for_end(timeout=10)
    assert log.banner == ["starting\n", f"{READY} to stop\n"]
    assert log.seen == 10
    assert log.lines() == [*log.banner, "line 7\n", "line 8\n", "line 9\n"]
    assert log.since(8) == "line 8\nline 9\n"
    assert log.since(2) == "[5 earlier lines not kept]\nline 7\nline 8\nline 9\n"


def test_an_output_that_ends_before_its_banner_is_not_waited_for() -> None:
    log = ServerOutput(io.StringIO("Traceback (most recent call last):\n"))
    assert not log.wait_for_banner(timeout=30)
    assert log.lines() == ["Traceback (most recent call last):\n"]
