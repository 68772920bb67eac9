"""A handshake-era MCP client over raw HTTP (httpx), for what the official client does not send: a JSON-only Accept,
an older protocol version, a host's own capabilities and name."""

from __future__ import annotations

import json
from typing import Any

import httpx


def _message(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC response a POST answered with, as JSON or as the last message of its event stream."""
    assert response.status_code == 200, response.text
    if response.headers["content-type"].startswith("application/json"):
        body: dict[str, Any] = response.json()
        return body
    lines = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
    messages = [json.loads(line) for line in lines if line]
    return next(m for m in reversed(messages) if "id" in m)


class RawSession:
    """A handshake-era client over raw HTTP, as it sends its requests: one initialize, then requests naming the
    version the server answered and the session it was given (if any)."""

    def __init__(
        self,
        http: httpx.Client,
        url: str,
        accept: str,
        capabilities: dict[str, Any],
        *,
        version: str = "2025-11-25",
        name: str = "agent",
    ) -> None:
        self._http, self._url, self._next = http, url, 1
        self._headers = {"accept": accept, "content-type": "application/json"}
        info = {"name": name, "version": "1"}
        params = {"protocolVersion": version, "capabilities": capabilities, "clientInfo": info}
        started = self._post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
        self.version: str = _message(started)["result"]["protocolVersion"]
        self.session_id = started.headers.get("mcp-session-id")
        self._headers["mcp-protocol-version"] = self.version
        if self.session_id is not None:
            self._headers["mcp-session-id"] = self.session_id
        self._post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _post(self, message: dict[str, Any]) -> httpx.Response:
        return self._http.post(self._url, json=message, headers=self._headers)

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self._next += 1
        answer = _message(self._post({"jsonrpc": "2.0", "id": self._next, "method": method, "params": params}))
        assert "result" in answer, answer
        result: dict[str, Any] = answer["result"]
        return result

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.request("tools/call", {"name": tool, "arguments": arguments})
