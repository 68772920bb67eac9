"""The Open WebUI integration's sign-in route, its module loaded as Open WebUI loads it, against `make dev`'s
server with sign-in on (AUTH_MODE=oauth, its local issuer) and the host secret set on both sides as the install
steps say: a user who pasted an access token (the one `make dev`'s banner prints) plays as the signed-in user; a
user who did not is told where to put one; the widget's own calls, which cannot carry that token, say so."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import httpx
import pytest
from openwebui_plugin import load_plugin
from widget_mcp.local.process import LocalServer, local_server

SECRET = secrets.token_urlsafe(32)


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with local_server("openwebui-sign-in-state", settings={"AUTH_MODE": "oauth", "HOST_TOKEN_SECRET": SECRET}) as up:
        yield up


@pytest.fixture(scope="module")
def banner_token(server: LocalServer) -> str:
    (line,) = [line for line in server.output if line.strip().startswith("token ")]
    return line.split()[-1]


@pytest.fixture(scope="module")
def integration() -> ModuleType:
    return load_plugin("openwebui_widget_mcp")


@pytest.fixture
def tools(integration: ModuleType, server: LocalServer) -> Any:
    toolkit = integration.Tools()
    toolkit.valves = integration.Tools.Valves(MCP_URL=f"{server.base}/mcp", HOST_TOKEN_SECRET=SECRET)
    toolkit._discover()  # what saving the tool in Open WebUI does, with its valves set
    return toolkit


class Emitted:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    async def __call__(self, event: dict[str, Any]) -> None:
        self.events.append(event)

    def statuses(self) -> list[dict[str, Any]]:
        return [e["data"] for e in self.events if e["type"] == "status"]


def _user(integration: ModuleType, user_id: str, access_token: str = "") -> dict[str, Any]:
    valves = integration.Tools.UserValves(ACCESS_TOKEN=access_token)
    return {"id": user_id, "name": user_id, "role": "user", "valves": valves}


def _embed_config(page: str) -> dict[str, Any]:
    text = page.split('<script type="application/json" id="config">', 1)[1].split("</script>", 1)[0]
    return dict(json.loads(text))


def _call_as_bearer(server: LocalServer, token: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    headers = {"accept": "application/json", "authorization": f"Bearer {token}"}
    return dict(httpx.post(f"{server.base}/mcp", json=body, headers=headers, timeout=30).json()["result"])


async def test_with_sign_in_on_a_user_with_an_access_token_plays_as_the_signed_in_user(
    tools: Any, integration: ModuleType, server: LocalServer, banner_token: str
) -> None:
    emitted = Emitted()
    user = _user(integration, "owui-user-1", banner_token)
    page, for_model = await tools.chess_new_game(opponent="engine", __user__=user, __event_emitter__=emitted)
    game = for_model["structuredContent"]["gameId"]
    assert emitted.statuses()[-1]["done"] is True
    assert "failed" not in emitted.statuses()[-1]["description"]
    moved = await tools.chess_move(gameId=game, move="e4", __user__=user, __event_emitter__=emitted)
    assert "error" not in moved, moved
    # The game belongs to the token's subject: the same token reads it back from the server.
    shown = _call_as_bearer(server, banner_token, "chess_show_game", {"gameId": game})
    assert shown["structuredContent"]["ply"] >= 1
    # The widget gets no token of any kind (an access token in the chat's page would outlive the chat's use of
    # it), and says why when it tries to call.
    config = _embed_config(page.body.decode())
    assert config["token"] == ""
    assert config["noTokenNote"] == integration.SIGNED_IN_NOTE
    assert banner_token not in page.body.decode()


async def test_with_sign_in_on_a_user_without_an_access_token_is_told_to_set_one_in_the_tool_user_settings(
    tools: Any, integration: ModuleType
) -> None:
    emitted = Emitted()
    answer = await tools.chess_new_game(__user__=_user(integration, "owui-user-2"), __event_emitter__=emitted)
    assert set(answer) == {"error", "code"}, answer
    assert "ACCESS_TOKEN" in answer["error"]
    assert "user settings" in answer["error"]
    last = emitted.statuses()[-1]
    assert last["done"] is True
    assert answer["error"] in last["description"]


async def test_with_sign_in_on_a_forged_access_token_is_refused_with_the_same_advice(
    tools: Any, integration: ModuleType, banner_token: str
) -> None:
    head, body, _signature = banner_token.split(".")
    forged = f"{head}.{body}.{'A' * 43}"
    answer = await tools.chess_new_game(__user__=_user(integration, "owui-user-3", forged), __event_emitter__=None)
    assert set(answer) == {"error", "code"}, answer
    assert "ACCESS_TOKEN" in answer["error"]


async def test_a_signed_in_user_is_asked_with_the_form_widget_and_its_key_never_with_the_text_for_clients_without_it(
    tools: Any, integration: ModuleType, banner_token: str
) -> None:
    # The user's access token, not the host token, names them: only the MCP Apps extension the integration declares
    # on every request says it shows widgets.
    user = _user(integration, "owui-user-4", banner_token)
    question = {"type": "object", "properties": {"city": {"type": "string", "title": "City"}}, "required": ["city"]}
    page, for_model = await tools.ask_question(question=question, title="Trip", __user__=user, __event_emitter__=None)

    assert for_model["content"].startswith("Showing a form: Trip."), for_model["content"]
    assert "cannot show forms" not in for_model["content"]
    assert "record_form_answer" not in for_model["content"]
    # The embed hands its widget the result, with the answer key only the widget sends back.
    config = _embed_config(page.body.decode())
    assert config["toolResult"]["_meta"]["dgui_answer_key"], config["toolResult"]["_meta"]
