"""Open WebUI's own HTTP API, as its web page uses it: accounts, the tool's install and valves, chats.

A chat turn is sent the way the web UI sends it (`POST /api/chat/completions` with the user message, the
assistant message's id and `tool_ids`, native function calling); the turn is stored by the time the call returns
and is read back from `GET /api/v1/chats/{id}`.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
INTEGRATION = ROOT / "integrations" / "openwebui" / "widget_mcp.py"
TOOL_ID = "widget_mcp"
PIPE_ID = "widget_mcp_pipe"
PUBLIC_READ = [{"principal_type": "user", "principal_id": "*", "permission": "read"}]


@dataclass
class Account:
    id: str
    email: str
    password: str
    token: str
    role: str


class OpenWebUIClient:
    def __init__(self, base: str, account: Account, model: str, tool_ids: tuple[str, ...] = (TOOL_ID,)) -> None:
        self.base = base
        self.account = account
        self.model = model
        self.tool_ids = list(tool_ids)
        self.http = httpx.Client(base_url=base, timeout=120.0, headers={"Authorization": f"Bearer {account.token}"})

    def close(self) -> None:
        self.http.close()

    @staticmethod
    def _ok(response: httpx.Response) -> Any:
        return _checked(response)

    # --- the integration, installed as an admin does ---

    def install_tool(self, valves: dict[str, Any], content: str | None = None) -> dict[str, Any]:
        """Create the tool from the integration file as it is, readable by every user, and set its valves."""
        form = {
            "id": TOOL_ID,
            "name": "widget-mcp",
            "content": content if content is not None else INTEGRATION.read_text(),
            "meta": {"description": "widget-mcp tools"},
            "access_grants": PUBLIC_READ,
        }
        created = self._ok(self.http.post("/api/v1/tools/create", json=form))
        self._ok(self.http.post(f"/api/v1/tools/id/{TOOL_ID}/valves/update", json=valves))
        return created

    def update_tool(self, content: str | None = None) -> dict[str, Any]:
        """Save the tool again (what refreshes its functions from the server's tool list)."""
        current = self._ok(self.http.get(f"/api/v1/tools/id/{TOOL_ID}"))
        form = {
            "id": TOOL_ID,
            "name": current["name"],
            "content": content if content is not None else INTEGRATION.read_text(),
            "meta": current.get("meta") or {},
        }
        return self._ok(self.http.post(f"/api/v1/tools/id/{TOOL_ID}/update", json=form))

    def tool(self) -> dict[str, Any]:
        return self._ok(self.http.get(f"/api/v1/tools/id/{TOOL_ID}"))

    def set_user_valves(self, valves: dict[str, Any]) -> None:
        self._ok(self.http.post(f"/api/v1/tools/id/{TOOL_ID}/valves/user/update", json=valves))

    def install_pipe(self, valves: dict[str, Any]) -> dict[str, Any]:
        """The same file as a Function (Admin Panel → Functions → import), turned on, with its valves: Open WebUI
        then lists it as a model of its own, named by the function's id."""
        form = {
            "id": PIPE_ID,
            "name": "widget-mcp pipe",
            "content": INTEGRATION.read_text(),
            "meta": {"description": "widget-mcp tools, steps in one block"},
        }
        created = self._ok(self.http.post("/api/v1/functions/create", json=form))
        if not self._ok(self.http.get(f"/api/v1/functions/id/{PIPE_ID}"))["is_active"]:
            self._ok(self.http.post(f"/api/v1/functions/id/{PIPE_ID}/toggle"))
        self._ok(self.http.post(f"/api/v1/functions/id/{PIPE_ID}/valves/update", json=valves))
        # Open WebUI keeps its model list until asked for it again, as its page does after a function is saved.
        assert PIPE_ID in self.models(), "the pipe is listed as a model"
        return dict(created)

    def models(self) -> list[str]:
        return [m["id"] for m in self._ok(self.http.get("/api/models"))["data"]]

    # --- chats ---

    def chat(self, text: str, chat_id: str | None = None, parent_id: str | None = None) -> Chat:
        """One user turn with the integration's tools; returns the stored chat."""
        user_message_id, assistant_id = str(uuid.uuid4()), str(uuid.uuid4())
        user_message = {
            "id": user_message_id,
            "parentId": parent_id,
            "childrenIds": [assistant_id],
            "role": "user",
            "content": text,
            "timestamp": int(time.time()),
            "models": [self.model],
        }
        body: dict[str, Any] = {
            "stream": True,
            "model": self.model,
            "messages": [{"role": "user", "content": text}],
            "params": {"function_calling": "native"},
            "tool_ids": self.tool_ids,
            "id": assistant_id,
            "parent_id": parent_id,
            "user_message": user_message,
            "features": {},
        }
        if chat_id:
            body["chat_id"] = chat_id
            body["messages"] = self._history(chat_id) + body["messages"]
        with self.http.stream("POST", "/api/chat/completions", json=body) as response:
            if response.status_code >= 400:
                response.read()
                raise AssertionError(f"chat completion: {response.status_code} {response.text}")
            for _ in response.iter_lines():
                pass
        chat_id = chat_id or self._chat_holding(assistant_id)
        return Chat(self._ok(self.http.get(f"/api/v1/chats/{chat_id}")), assistant_id)

    def _history(self, chat_id: str) -> list[dict[str, Any]]:
        stored = self._ok(self.http.get(f"/api/v1/chats/{chat_id}"))
        return [{"role": m["role"], "content": m.get("content") or ""} for m in stored["chat"].get("messages", [])]

    def _chat_holding(self, message_id: str) -> str:
        for item in self._ok(self.http.get("/api/v1/chats/")):
            stored = self._ok(self.http.get(f"/api/v1/chats/{item['id']}"))
            if message_id in stored["chat"]["history"]["messages"]:
                return str(item["id"])
        raise AssertionError(f"no stored chat holds message {message_id}")


@dataclass
class Chat:
    stored: dict[str, Any]
    assistant_id: str

    @property
    def id(self) -> str:
        return str(self.stored["id"])

    @property
    def message(self) -> dict[str, Any]:
        """The assistant message of the turn."""
        return dict(self.stored["chat"]["history"]["messages"][self.assistant_id])

    def function_calls(self) -> list[dict[str, Any]]:
        return [o for o in self.message.get("output") or [] if o.get("type") == "function_call"]

    def function_outputs(self) -> list[dict[str, Any]]:
        return [o for o in self.message.get("output") or [] if o.get("type") == "function_call_output"]


def sign_up(base: str, name: str) -> Account:
    """The first account on a fresh Open WebUI: its admin."""
    email, password = f"{name}@example.test", f"pw-{uuid.uuid4().hex}"
    with httpx.Client(base_url=base, timeout=60.0) as http:
        data = _checked(http.post("/api/v1/auths/signup", json={"name": name, "email": email, "password": password}))
    return Account(data["id"], email, password, data["token"], data["role"])


def add_user(base: str, admin: Account, name: str) -> Account:
    """Another account, made by the admin (Admin Panel → Users → add), signed in with its own password."""
    email, password = f"{name}@example.test", f"pw-{uuid.uuid4().hex}"
    with httpx.Client(base_url=base, timeout=60.0) as http:
        form = {"name": name, "email": email, "password": password, "role": "user"}
        _checked(http.post("/api/v1/auths/add", json=form, headers={"Authorization": f"Bearer {admin.token}"}))
        data = _checked(http.post("/api/v1/auths/signin", json={"email": email, "password": password}))
    return Account(data["id"], email, password, data["token"], data["role"])


def _checked(response: httpx.Response) -> Any:
    if response.status_code >= 400:
        request = response.request
        raise AssertionError(f"{request.method} {request.url}: {response.status_code} {response.text}")
    return response.json()
