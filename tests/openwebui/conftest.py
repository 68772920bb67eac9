"""The Open WebUI layer: the real Open WebUI 0.12.4 (its own environment, `make test-openwebui`), a scripted
model, and `make dev`'s server, all on loopback, started once per run and torn down after it.

The integration is installed through Open WebUI's API exactly as its file is, then saved once more after its
valves are set, which is when Open WebUI reads its functions (the server's tool list at MCP_URL).
Nothing here skips: without Open WebUI's environment or Chromium the layer fails, saying what is missing.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
import pytest
from openwebui_client import PIPE_ID, Account, OpenWebUIClient, add_user, sign_up
from openwebui_server import OpenWebUI, OpenWebUIMissing, open_webui
from playwright.sync_api import Browser, Playwright, sync_playwright
from scripted_model import MODEL_ID, ScriptedModel, scripted_model
from widget_mcp.auth.host_tokens import HEADER, sign
from widget_mcp.local.chromium import CHROMIUM_ARGS, ChromiumNotFound, find_chromium
from widget_mcp.local.process import local_server

SECRET = secrets.token_urlsafe(32)
T = TypeVar("T")


@dataclass
class Server:
    """`make dev`'s server, with the secret it shares with the integration."""

    base: str
    secret: str

    @property
    def mcp(self) -> str:
        return f"{self.base}/mcp"

    def rpc(self, method: str, params: dict[str, Any] | None = None, headers: dict[str, str] | None = None) -> Any:
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": method}
        if params is not None:
            body["params"] = params
        reply = httpx.post(self.mcp, json=body, headers={"accept": "application/json", **(headers or {})}, timeout=30)
        return reply.json()["result"]

    def tools(self) -> list[dict[str, Any]]:
        return list(self.rpc("tools/list")["tools"])

    def call_as(self, user_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A tool call as the Open WebUI user the integration names (a call token signed with the shared secret)."""
        headers = {HEADER: sign(self.secret, "openwebui", user_id, "call", 60)}
        return dict(self.rpc("tools/call", {"name": name, "arguments": arguments}, headers))


def eventually(probe: Callable[[], T], done: Callable[[T], bool], seconds: float = 30.0) -> T:
    """The first value of `probe` that is `done`, polled with a bound; the last one when the bound passes."""
    deadline = time.monotonic() + seconds
    while True:
        value = probe()
        if done(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.2)  # a poll interval inside a bounded wait


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    with local_server("openwebui-state", settings={"HOST_TOKEN_SECRET": SECRET}) as local:
        yield Server(local.base, SECRET)


@pytest.fixture(scope="session")
def model() -> Iterator[ScriptedModel]:
    with scripted_model() as scripted:
        yield scripted


@pytest.fixture(scope="session")
def openwebui(model: ScriptedModel) -> Iterator[OpenWebUI]:
    try:
        with open_webui(model.base) as running:
            yield running
    except OpenWebUIMissing as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def admin_account(openwebui: OpenWebUI) -> Account:
    return sign_up(openwebui.base, "admin")


@pytest.fixture(scope="session")
def admin(openwebui: OpenWebUI, admin_account: Account, server: Server) -> Iterator[OpenWebUIClient]:
    """The admin's client, with the integration installed and its valves pointing at `make dev`'s server."""
    client = OpenWebUIClient(openwebui.base, admin_account, MODEL_ID)
    client.install_tool({"MCP_URL": server.mcp, "HOST_TOKEN_SECRET": server.secret})
    client.update_tool()
    yield client
    client.close()


@pytest.fixture(scope="session")
def piped(openwebui: OpenWebUI, admin: OpenWebUIClient, server: Server) -> Iterator[OpenWebUIClient]:
    """The admin chatting with the same file installed as a Pipe (a model of its own wrapping the scripted one),
    with no Tool turned on in the chat."""
    admin.install_pipe({"MODEL_ID": MODEL_ID, "MCP_URL": server.mcp, "HOST_TOKEN_SECRET": server.secret})
    client = OpenWebUIClient(openwebui.base, admin.account, PIPE_ID, tool_ids=())
    yield client
    client.close()


@pytest.fixture(scope="session")
def bob(openwebui: OpenWebUI, admin: OpenWebUIClient) -> Iterator[OpenWebUIClient]:
    """A second Open WebUI user (not an admin), who may use the integration."""
    client = OpenWebUIClient(openwebui.base, add_user(openwebui.base, admin.account, "bob"), MODEL_ID)
    yield client
    client.close()


# Playwright's sync API keeps an event loop running in this thread while it is open: one test module at a time.
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    try:
        chromium = find_chromium()
    except ChromiumNotFound as exc:
        pytest.fail(f"the Open WebUI layer needs Chromium: {exc}", pytrace=False)
    browser = playwright.chromium.launch(executable_path=chromium, args=list(CHROMIUM_ARGS))
    yield browser
    browser.close()
