"""`make dev` reloads, in a copy of this repository: a Python change restarts the app and a widget source change
rebuilds the bundle (a new template URI), while moto keeps running, so a game in progress survives both; Ctrl-C
still stops everything cleanly."""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from repo_copy import ROOT, copy_repo
from widget_mcp.local.process import LocalServer, local_server

SUBJECT = {"openai/subject": "reload-player"}
POLL_SECONDS = 0.1
BOUND_SECONDS = 90  # generous: the machine running the tests may be busy; a reload takes about a second
CHESS_TOOLS = "lambda_src/widget_mcp/apps/chess/tools.py"
CHESS_HANDLERS = "lambda_src/widget_mcp/apps/chess/handlers.py"
SHOW_GAME = "Shows one of the user's games: the board and the list of moves so far. Changes nothing."
EDITED = "Shows a game again (edited while make dev runs)."
DISPLAY_SOURCE = "widget_bundles/src/display/main.ts"


class Running:
    """A local server (its output drained by local_server), with bounded waits."""

    def __init__(self, server: LocalServer) -> None:
        self.server, self.base = server, server.base

    @property
    def output(self) -> str:
        return "".join(self.server.output)

    async def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        async with Client(f"{self.base}/mcp", mode="legacy") as client:
            result = await client.call_tool(tool, args, meta=SUBJECT)
        assert not result.is_error, result
        structured: dict[str, Any] = result.structured_content or {}
        return structured

    async def tools(self) -> dict[str, Any]:
        async with Client(f"{self.base}/mcp", mode="legacy") as client:
            return {tool.name: tool for tool in (await client.list_tools()).tools}

    def stop_with_ctrl_c(self, since: int = 0) -> str:
        """SIGINT, as Ctrl-C sends; what the server printed after its line `since` (a `log.seen`)."""
        return self.server.interrupt(since)


async def until(what: str, check: Callable[[], Awaitable[Any]]) -> Any:
    """Poll `check` (an async callable) until it returns something truthy, for at most BOUND_SECONDS. A poll that
    fails counts as not yet: a request on a kept-alive connection that the old worker closes as it stops fails."""
    deadline = time.monotonic() + BOUND_SECONDS
    failure: Exception | None = None
    while True:
        found = None
        try:
            found = await asyncio.wait_for(check(), max(deadline - time.monotonic(), 0.1))
        except Exception as exc:
            failure = exc
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"not seen within {BOUND_SECONDS} s: {what} (last failure: {failure!r})")
        await asyncio.sleep(POLL_SECONDS)


def port_is_free(base: str) -> bool:
    """Whether a new `make dev` could listen on the port now. SO_REUSEADDR, as `make dev` binds: connections the
    server closed may linger in TIME_WAIT, which must not count; a process still listening there does."""
    port = int(base.rsplit(":", 1)[1])
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@contextlib.contextmanager
def dev_mode(copy: Path, table: str) -> Iterator[Running]:
    with local_server(table, reload=True, root=copy, timeout=BOUND_SECONDS) as server:
        yield Running(server)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


async def native_form(base: str, request_state: str | None = None) -> dict[str, Any]:
    """`ask_question` for a 2026-07-28 host that elicits and shows no widget: asked (input_required), or, with the
    requestState it was given, answered."""
    params: dict[str, Any] = {
        "name": "ask_question",
        "arguments": {"question": {"type": "object", "properties": {"name": {"type": "string"}}}},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        },
    }
    if request_state is not None:
        params |= {"inputResponses": {"form": {"action": "accept", "content": {"name": "Ada"}}}}
        params |= {"requestState": request_state}
    headers = {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "ask_question"}
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    async with httpx.AsyncClient(timeout=10) as http:
        reply = await http.post(f"{base}/mcp", json=message, headers=headers)
    body: dict[str, Any] = reply.json()
    assert "result" in body, body
    result: dict[str, Any] = body["result"]
    return result


async def test_a_python_change_restarts_the_app_and_a_game_in_progress_survives_it(tmp_path: Path) -> None:
    copy = copy_repo(tmp_path)  # no widget_bundles/node_modules here: the widgets are not watched
    with dev_mode(copy, "reload-python") as dev:
        assert "state          in memory (moto): kept across reloads, lost when `make dev` stops" in dev.output
        assert "reload         Python (lambda_src/), widgets not watched (no widget_bundles/node_modules" in dev.output
        game = await dev.call("chess_new_game", {"opponent": "human"})
        await dev.call("chess_move", {"gameId": game["gameId"], "move": "e4"})
        asked = await native_form(dev.base)
        assert asked["resultType"] == "input_required"

        started = time.monotonic()
        edit(copy / CHESS_TOOLS, SHOW_GAME, EDITED)

        async def edited() -> bool:
            return bool((await dev.tools())["chess_show_game"].description == EDITED)

        await until("the edited description in tools/list", edited)
        print(f"reload seen by a client {time.monotonic() - started:.2f} s after the edit")
        shown = await dev.call("chess_show_game", {"gameId": game["gameId"]})
        assert (shown["gameId"], shown["ply"]) == (game["gameId"], 1)
        # The requestState signed before the reload is accepted after it: one key for the whole run.
        answered = await native_form(dev.base, asked["requestState"])
        assert answered["_meta"]["dgui_response"]["data"] == {"name": "Ada"}
        assert f"{CHESS_TOOLS} changed: restarting the app (moto and its state keep running)" in dev.output
        assert re.search(r"reloaded in \d+\.\d s: \d+ tools", dev.output)

        # A mistake in a saved file: every request is answered at once with the error, none hangs, until the fix.
        tools = (copy / CHESS_TOOLS).read_text()
        (copy / CHESS_TOOLS).write_text(tools + "\ndef broken(:\n")
        where = f"tools.py, line {tools.count(chr(10)) + 2})"

        async def refused() -> httpx.Response | None:
            async with httpx.AsyncClient(timeout=5) as http:
                reply = await http.get(f"{dev.base}/healthz")
            return reply if reply.status_code == 503 else None

        health = await until("/healthz answering with the syntax error", refused)
        assert "The app failed to load: SyntaxError" in health.json()["error"]
        assert where in health.json()["error"]
        async with httpx.AsyncClient(timeout=5) as http:
            listed = await http.post(f"{dev.base}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert listed.status_code == 503
        assert where in listed.json()["error"]["message"]
        assert "the app failed to load (SyntaxError" in dev.output
        (copy / CHESS_TOOLS).write_text(tools)
        shown = await until("the fixed app", lambda: dev.call("chess_show_game", {"gameId": game["gameId"]}))
        assert shown["ply"] == 1

        # A mistake in code a handler imports on its first call is printed at the reload, not at that call.
        handlers = (copy / CHESS_HANDLERS).read_text()
        (copy / CHESS_HANDLERS).write_text(handlers + "\ndef broken(:\n")
        expected = f"chess_list_games cannot load its handler: SyntaxError: invalid syntax ({copy / CHESS_HANDLERS}"

        async def printed() -> bool:
            return expected in dev.output

        await until("the handler's mistake printed with its file", printed)
        assert f"{CHESS_HANDLERS}, line {handlers.count(chr(10)) + 2})" in dev.output
        (copy / CHESS_HANDLERS).write_text(handlers)
        shown = await until("the fixed handler", lambda: dev.call("chess_show_game", {"gameId": game["gameId"]}))
        assert shown["ply"] == 1
        fixed = dev.server.log.seen

        rest = dev.stop_with_ctrl_c(since=fixed)
        assert dev.server.proc.returncode == 0
        assert "Traceback" not in rest
        assert rest.strip().endswith("stopped")
        assert port_is_free(dev.base), "a worker process still holds the port"


def template_script(html: str) -> str:
    found = re.search(r'<script type="module" src="[^"]*?/widgets/([^"]+)"', html)
    assert found, html
    return found.group(1)


async def test_a_widget_source_change_is_rebuilt_and_served_under_a_new_template_uri_without_a_restart(
    tmp_path: Path,
) -> None:
    modules = ROOT / "widget_bundles" / "node_modules"
    if not (modules / "vite").is_dir():
        pytest.fail("widget_bundles/node_modules is missing: run `make widgets` first", pytrace=False)
    copy = copy_repo(tmp_path)
    (copy / "widget_bundles" / "node_modules").symlink_to(modules)
    with dev_mode(copy, "reload-widgets") as dev:
        assert "reload         Python (lambda_src/), widgets (Vite rebuilds widget_bundles/src)" in dev.output
        game = await dev.call("chess_new_game", {"opponent": "human"})

        async def display_template() -> tuple[str, str] | None:
            """display_demo's template URI and its script, once served from a built manifest."""
            uri = str((await dev.tools())["display_demo"].meta["ui"]["resourceUri"])
            async with Client(f"{dev.base}/mcp", mode="legacy") as client:
                read = await client.read_resource(uri)
            script = template_script(str(read.contents[0].text))  # type: ignore[union-attr]
            return (uri, script) if script.startswith("assets/") else None

        # The copy has no bundles until Vite's first build; the app restarts on the manifest it writes.
        before, _ = await until("the display template from the first build", display_template)
        marker = f"reload-marker-{time.time_ns()}"
        with (copy / DISPLAY_SOURCE).open("a") as source:
            source.write(f'document.documentElement.dataset.reloadMarker = "{marker}";\n')

        async def rebuilt() -> str | None:
            found = await display_template()
            if found is None or found[0] == before:
                return None
            async with httpx.AsyncClient(timeout=10) as http:
                script = await http.get(f"{dev.base}/widgets/{found[1]}")
            return found[0] if marker in script.text else None

        after = await until("a display template whose script has the edit", rebuilt)
        assert after != before
        assert re.fullmatch(r"ui://widget/display-[0-9a-f]{12}\.html", after)
        shown = await dev.call("chess_show_game", {"gameId": game["gameId"]})
        assert shown["gameId"] == game["gameId"]
        assert "widgets: rebuilt in" in dev.output
        assert "widget_bundles/dist/manifest.json changed: restarting the app" in dev.output

        rest = dev.stop_with_ctrl_c()
        assert dev.server.proc.returncode == 0
        assert "Traceback" not in rest
        assert rest.strip().endswith("stopped")
        assert port_is_free(dev.base)
