"""Two third-party widget hosts, installed from npm (package.json here, locked): the MCPJam inspector, which renders
a tool's template through ChatGPT's `window.openai`, and the mcp-use inspector, an MCP Apps host (with a
`window.openai` of its own in the view's frame). Each runs as its own Node server on a free loopback port, never
opening a browser, with `loopback.cjs` preloaded: it listens on 127.0.0.1 only and reaches no other machine (their
telemetry included). The browser context that drives them reaches loopback only, too.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlparse

import httpx
from playwright.sync_api import Browser, BrowserContext, FrameLocator, Page, Route
from widget_mcp.local.aws import free_port

HERE = Path(__file__).resolve().parent
MODULES = HERE / "node_modules"
PRELOAD = HERE / "loopback.cjs"
START_TIMEOUT = 60.0  # MCPJam's server loads ~200 modules before it listens: seconds on a busy 2-core machine
# Both hosts show their notices as sonner toasts.
HOST_ERRORS = '[data-sonner-toast][data-type="error"]'


@dataclass
class Inspector:
    name: str
    url: str  # the page a user opens
    proc: subprocess.Popen[str]
    output: list[str] = field(default_factory=list)


def _package(name: str) -> Path:
    root = MODULES / name
    if not (root / "package.json").is_file():
        raise RuntimeError(f"{name} is not installed in {MODULES}: run `make test` (it runs npm ci there)")
    return root


def _drain(proc: subprocess.Popen[str], lines: list[str]) -> None:
    # Read as long as it runs: an unread pipe fills and the server blocks on its next log line.
    assert proc.stdout is not None
    for line in proc.stdout:
        lines.append(line)


@contextmanager
def _node(
    name: str, cwd: Path, args: list[str], env: Mapping[str, str]
) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    command = ["node", "--require", str(PRELOAD), *args]
    proc = subprocess.Popen(
        command,
        cwd=cwd,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",  # a log line is read, never decoded strictly
        start_new_session=True,
    )
    lines: list[str] = []
    drain = threading.Thread(target=_drain, args=(proc, lines), name=f"{name}-output", daemon=True)
    drain.start()
    try:
        yield proc, lines
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        finally:
            # The reader ends at the pipe's end once the process is gone; closing the pipe under it would raise there.
            drain.join(10)
            assert proc.stdout is not None
            if not drain.is_alive():
                proc.stdout.close()


def _await(check: Callable[[], bool], proc: subprocess.Popen[str], lines: list[str], what: str) -> None:
    """Poll `check` (a callable returning bool) with a bound; fail with the server's output if it never holds."""
    deadline = time.monotonic() + START_TIMEOUT
    while not check():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not start:\n{''.join(lines[-40:])}")
        time.sleep(0.1)


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


@contextmanager
def mcpjam(mcp_url: str) -> Iterator[Inspector]:
    """MCPJam's server (dist/server, as its `inspector` command starts it, without that command's browser opening)
    with our server in its config, connected on load."""
    root = _package("@mcpjam/inspector")
    port = free_port()
    config = {"mcpServers": {"widget-mcp": {"type": "http", "url": mcp_url}}}
    env = {"NODE_ENV": "production", "PORT": str(port), "MCP_CONFIG_DATA": json.dumps(config)}
    with _node("mcpjam", root, ["dist/server/index.js"], env) as (proc, lines):
        base = f"http://127.0.0.1:{port}"
        _await(lambda: _answers(f"{base}/health"), proc, lines, "the MCPJam inspector")
        yield Inspector("mcpjam", f"{base}/", proc, lines)


@contextmanager
def mcp_use(mcp_url: str) -> Iterator[Inspector]:
    """The mcp-use inspector's own command (`mcp-inspect --no-open`), auto-connecting to our server, telemetry off."""
    root = _package("@mcp-use/inspector")
    env = {"MCP_USE_ANONYMIZED_TELEMETRY": "false"}
    args = ["dist/cli.js", "--no-open", "--port", str(free_port()), "--url", mcp_url]
    with _node("mcp-use", root, args, env) as (proc, lines):
        # It takes the first free port from the one given, and says which.
        started = re.compile(r"started at http://localhost:(\d+)/inspector")

        def port() -> int | None:
            found = next((m for m in map(started.search, list(lines)) if m), None)
            return int(found.group(1)) if found else None

        _await(lambda: port() is not None and _answers(f"http://localhost:{port()}/inspector"), proc, lines, "mcp-use")
        yield Inspector(
            "mcp-use", f"http://localhost:{port()}/inspector?autoConnect={quote(mcp_url, safe='')}", proc, lines
        )


def _loopback_only(route: Route) -> None:
    url = route.request.url
    if url.startswith(("data:", "blob:", "about:")) or urlparse(url).hostname in ("127.0.0.1", "localhost", "[::1]"):
        route.continue_()
    else:
        route.abort()  # fonts, Sentry, PostHog: nothing leaves this machine


@contextmanager
def loopback_context(browser: Browser) -> Iterator[BrowserContext]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(20_000)
    context.route("**/*", _loopback_only)
    try:
        yield context
    finally:
        context.close()


def open_in_mcp_use(page: Page, host: Inspector, tool: str, fields: dict[str, str] | None = None) -> FrameLocator:
    """Runs `tool` from the mcp-use inspector's tools page, its `fields` typed in: the view's frame."""
    page.goto(host.url)
    page.locator(f"#tool-{tool}").click()
    for name, value in (fields or {}).items():
        page.get_by_placeholder(f"Enter {name}").fill(value)
    page.get_by_role("button", name="Execute").click()
    # The host's frame (a sandbox on a second origin) holds the view's frame.
    return page.frame_locator(f'iframe[title="MCP App: {tool}"]').frame_locator("iframe")
