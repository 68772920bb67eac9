"""A scripted OpenAI-compatible model for Open WebUI: `/v1/models` and `/v1/chat/completions`, on loopback.

The user's message is the script. Each line `call <tool> <json arguments>` becomes one native tool call, to the
offered function whose name ends with `<tool>` (so the test names MCP tools, never the prefix the host gives
them); each line `say <text>` is words the model writes beside those calls. Once the last message is a tool
result, the model answers in words, quoting every tool result it was given, so a test can read what the model saw.
Every request is kept for the test to inspect.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL_ID = "scripted"
CALL = "call "
SAY = "say "


@dataclass
class ScriptedModel:
    base: str
    requests: list[dict[str, Any]] = field(default_factory=list)

    def chat_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if "messages" in r]

    def offered_functions(self) -> list[dict[str, Any]]:
        """The functions offered in the latest request that offered any."""
        for request in reversed(self.chat_requests()):
            if request.get("tools"):
                return [t["function"] for t in request["tools"]]
        return []


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def reply_for(request: dict[str, Any]) -> dict[str, Any]:
    """The assistant message the script gives for this request: tool calls, or words."""
    messages = request.get("messages") or []
    last = messages[-1] if messages else {}
    if last.get("role") == "user":
        offered = [t["function"]["name"] for t in request.get("tools") or []]
        calls, words = [], []
        for number, line in enumerate(_text(last.get("content")).splitlines()):
            if line.startswith(SAY):
                words.append(line[len(SAY) :])
            if not line.startswith(CALL):
                continue
            tool, _, arguments = line[len(CALL) :].partition(" ")
            matches = [name for name in offered if name == tool or name.endswith("_" + tool)]
            if not matches:
                return {"role": "assistant", "content": f"No offered function ends with {tool}: {offered}"}
            calls.append(
                {
                    "id": f"call_{int(time.time() * 1000)}_{number}",
                    "type": "function",
                    "function": {"name": matches[0], "arguments": arguments.strip() or "{}"},
                }
            )
        if calls:
            return {"role": "assistant", "content": " ".join(words) or None, "tool_calls": calls}
        return {"role": "assistant", "content": "Nothing to call."}
    results = []
    for message in reversed(messages):
        if message.get("role") != "tool":
            break
        results.insert(0, _text(message.get("content")))
    return {"role": "assistant", "content": "Done. The tools said: " + " | ".join(results)}


def _chunks(message: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The message as streamed chunks, the way OpenAI streams them (tool calls with an index)."""
    base = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0, "model": MODEL_ID}
    if message.get("tool_calls"):
        calls = [{"index": i, **call} for i, call in enumerate(message["tool_calls"])]
        delta = {"role": "assistant", "content": message.get("content"), "tool_calls": calls}
        yield {**base, "choices": [{"index": 0, "delta": delta}]}
        finish = "tool_calls"
    else:
        delta = {"role": "assistant", "content": message.get("content") or ""}
        yield {**base, "choices": [{"index": 0, "delta": delta}]}
        finish = "stop"
    yield {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}


class _Handler(BaseHTTPRequestHandler):
    model: ScriptedModel

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _json(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._json(200, {"object": "list", "data": [{"id": MODEL_ID, "object": "model", "owned_by": "tests"}]})
        else:
            self._json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        self.model.requests.append(request)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._json(404, {"error": {"message": "not found"}})
            return
        message = reply_for(request)
        if not request.get("stream"):
            finish = "tool_calls" if message.get("tool_calls") else "stop"
            choice = {"index": 0, "message": message, "finish_reason": finish}
            completion = {"id": "chatcmpl-scripted", "object": "chat.completion", "model": MODEL_ID}
            self._json(200, {**completion, "choices": [choice]})
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        for chunk in _chunks(message):
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")


@contextmanager
def scripted_model() -> Iterator[ScriptedModel]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    model = ScriptedModel(f"http://127.0.0.1:{server.server_address[1]}/v1")
    server.RequestHandlerClass = type("Handler", (_Handler,), {"model": model})
    thread = threading.Thread(target=server.serve_forever, name="scripted-model", daemon=True)
    thread.start()
    try:
        yield model
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
