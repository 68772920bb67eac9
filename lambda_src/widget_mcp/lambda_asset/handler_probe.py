"""Drives the Lambda handler with API Gateway HTTP API (v2) events, under any Python 3.13 (standard library only).

Run by the asset build (`scenario: "init"`: which modules a cold start loads) and by `make asset-smoke`
(`scenario: "smoke"`: a whole session against DynamoDB, under emulation), as

    python -I -S -B lambda_asset/handler_probe.py CONFIG.json

CONFIG: `paths` (put first on sys.path, in order: the code, then what the runtime provides), `host` (the Host
header, one of ALLOWED_HOSTS), `scenario`, `sign_in` (the function verifies tokens), `token` (a bearer token
for the stateful tools, or null), `report` (where the JSON report goes; stdout belongs to the function's logs).

The report names, per path and relative to it, every module loaded (`modules`) and every source file whose code
the import system asked for (`code_loaded`, which also holds imports that failed, e.g. an optional dependency's
fallback), and lists every file compiled from source instead of loaded from bytecode: the loader's
`source_to_code` runs only when no usable `.pyc` exists (missing, another Python's magic number, or stale under
a checked invalidation mode).
"""

from __future__ import annotations

import importlib
import importlib._bootstrap_external as bootstrap_external
import json
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

config = json.loads(Path(sys.argv[1]).read_text())
roots = [Path(p).resolve() for p in config["paths"]]
sys.path[:0] = [str(p) for p in roots]

compiled_from_source: list[str] = []
code_loaded: list[str] = []
_source_to_code = bootstrap_external.SourceLoader.source_to_code
_get_code = bootstrap_external.SourceLoader.get_code


def _recording_source_to_code(self: Any, data: Any, path: Any, *args: Any, **kwargs: Any) -> Any:
    compiled_from_source.append(str(path))
    return _source_to_code(self, data, path, *args, **kwargs)


def _recording_get_code(self: Any, fullname: str) -> Any:
    # Every module run from a source file, from bytecode or not, including imports that then fail (an optional
    # dependency missing), which never stay in sys.modules.
    code_loaded.append(str(self.get_filename(fullname)))
    return _get_code(self, fullname)


bootstrap_external.SourceLoader.source_to_code = _recording_source_to_code  # type: ignore[method-assign]
bootstrap_external.SourceLoader.get_code = _recording_get_code  # type: ignore[method-assign]


def hook_records_a_source_compile() -> bool:
    """The control: a module without bytecode must show up as compiled from source, else the record means nothing."""
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "bytecode_control.py").write_text("VALUE = 1\n")
        sys.path.insert(0, folder)
        try:
            importlib.import_module("bytecode_control")
        finally:
            sys.path.remove(folder)
            sys.modules.pop("bytecode_control", None)
    seen = [path for path in compiled_from_source if path.endswith("bytecode_control.py")]
    compiled_from_source.clear()
    code_loaded.clear()
    return len(seen) == 1


PROTOCOL = "2025-11-25"
FLIGHT = {
    "type": "object",
    "properties": {
        "destinationCity": {"type": "string", "title": "Destination City", "default": "Tokyo"},
        "departureDate": {"type": "string", "title": "Departure Date", "format": "date"},
    },
    "required": ["destinationCity", "departureDate"],
}


class Context:
    aws_request_id = "5f0c1e52-0000-4000-8000-00000000a55e"
    function_name = "widget-mcp"
    function_version = "1"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:eu-west-1:123456789012:function:widget-mcp:live"
    log_group_name = "/aws/lambda/widget-mcp"
    log_stream_name = "2026/11/22/[1]probe"

    @staticmethod
    def get_remaining_time_in_millis() -> int:
        return 20_000


class StepFailed(AssertionError):
    pass


steps: list[dict[str, Any]] = []
handler: Any = None
served_tools: set[str] = set()


def event(method: str, path: str, body: Any = "", headers: dict[str, str] | None = None) -> dict[str, Any]:
    """An API Gateway HTTP API (payload 2.0) event, as the stage sends it to the function."""
    text = body if isinstance(body, str) else json.dumps(body)
    return {
        "version": "2.0",
        "routeKey": f"{method} {path}",
        "rawPath": path,
        "rawQueryString": "",
        "headers": {
            "accept": "application/json, text/event-stream",
            "content-type": "application/json",
            "content-length": str(len(text.encode())),
            "host": config["host"],
            "user-agent": "openai-mcp/1.0",
            "x-forwarded-for": "192.0.2.10",
            "x-forwarded-port": "443",
            "x-forwarded-proto": "https",
            **(headers or {}),
        },
        "requestContext": {
            "accountId": "123456789012",
            "apiId": config["host"].split(".")[0],
            "domainName": config["host"],
            "domainPrefix": config["host"].split(".")[0],
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "192.0.2.10",
                "userAgent": "openai-mcp/1.0",
            },
            "requestId": f"probe-{len(steps)}",
            "routeKey": f"{method} {path}",
            "stage": "$default",
            "time": "22/Nov/2026:10:00:00 +0000",
            "timeEpoch": 1795255200000,
        },
        "body": text,
        "isBase64Encoded": False,
    }


def call(name: str, method: str, path: str, body: Any = "", *, headers: dict[str, str] | None = None) -> Any:
    started = time.perf_counter()
    reply = handler(event(method, path, body, headers), Context())
    seconds = time.perf_counter() - started
    status = reply["statusCode"]
    try:
        payload = json.loads(reply.get("body") or "null")
    except ValueError:
        payload = reply.get("body")
    steps.append({"name": name, "status": status, "seconds": round(seconds, 3), "ok": True, "detail": ""})
    return status, {k.lower(): v for k, v in (reply.get("headers") or {}).items()}, payload


def check(condition: bool, detail: str) -> None:
    if not condition:
        steps[-1]["ok"] = False
        steps[-1]["detail"] = detail
        raise StepFailed(detail)


def rpc(name: str, method: str, params: dict[str, Any], *, token: str | None = None) -> Any:
    message = {"jsonrpc": "2.0", "id": len(steps) + 1, "method": method, "params": params}
    headers = {"authorization": f"Bearer {token}"} if token else {}
    status, _, body = call(name, "POST", "/mcp", message, headers=headers)
    check(status == 200, f"HTTP {status}: {str(body)[:300]}")
    check(isinstance(body, dict) and "result" in body, f"no result: {str(body)[:300]}")
    return body["result"]


# The `_meta` of the last tool result: where a form's widget finds the answer key it sends back with the answers.
last_meta: dict[str, Any] = {}


def tool(name: str, arguments: dict[str, Any], *, token: str | None) -> dict[str, Any]:
    # As ChatGPT calls: its display signal (forms are shown in their widget) and, without sign-in, its user id.
    meta: dict[str, Any] = {"openai/locale": "en-US"}
    if not token:
        meta["openai/subject"] = "asset-smoke"
    params: dict[str, Any] = {"name": name, "arguments": arguments, "_meta": meta}
    result = rpc(f"tools/call {name}", "tools/call", params, token=token)
    check(not result.get("isError"), f"isError: {json.dumps(result)[:300]}")
    last_meta.clear()
    last_meta.update(result.get("_meta") or {})
    structured: dict[str, Any] = result.get("structuredContent") or {}
    return structured


REFERENCE_TOOLS = {"display_demo", "chess_new_game", "chess_move", "ask_question", "submit_form", "get_form_response"}
WIDGET_MIME_TYPE = "text/html;profile=mcp-app"


def cold_start_requests() -> None:
    """What needs no state: the handshake, the lists, every resource, ping, health, and (where the demo app is
    served) a stateless tool. Any registry of apps passes: a widget template must be an MCP App's HTML, any other
    resource must have contents."""
    info = rpc(
        "initialize",
        "initialize",
        {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "handler-probe", "version": "1"}},
    )
    check(info.get("serverInfo", {}).get("name") == "widget-mcp", f"serverInfo: {info.get('serverInfo')}")
    global served_tools
    served_tools = {t["name"] for t in rpc("tools/list", "tools/list", {})["tools"]}
    for resource in rpc("resources/list", "resources/list", {})["resources"]:
        contents = rpc(f"resources/read {resource['uri']}", "resources/read", {"uri": resource["uri"]})["contents"]
        check(bool(contents), "no contents")
        if resource["uri"].startswith("ui://"):
            check(contents[0].get("mimeType") == WIDGET_MIME_TYPE, f"mimeType: {contents[0].get('mimeType')}")
    rpc("ping", "ping", {})
    status, _, body = call("GET /healthz", "GET", "/healthz")
    check(status == 200, f"HTTP {status}: {body}")
    if config["sign_in"]:
        status, _, body = call("GET protected-resource metadata", "GET", "/.well-known/oauth-protected-resource/mcp")
        check(status == 200 and "authorization_servers" in body, f"HTTP {status}: {str(body)[:300]}")
        message = {"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {"name": "chess_list_games"}}
        status, headers, body = call("tools/call chess_list_games without a token", "POST", "/mcp", message)
        check(status == 401, f"HTTP {status}, expected 401: {str(body)[:300]}")
        check(headers.get("www-authenticate", "").startswith("Bearer "), f"WWW-Authenticate: {headers}")
    if "display_demo" in served_tools:
        tool("display_demo", {"message": "hello from the probe"}, token=None)
    elif served_tools:
        # Another registry: any tool, without arguments; answered or refused, the call's path is loaded.
        name = min(served_tools)
        message = {"jsonrpc": "2.0", "id": len(steps) + 1, "method": "tools/call", "params": {"name": name}}
        call(f"tools/call {name}", "POST", "/mcp", message)


def stateful_session(token: str | None) -> None:
    """A chess game against the engine (new + move) and a form (ask + submit + get), stored in DynamoDB: the
    reference apps' session, which `make asset-smoke` plays."""
    check(served_tools >= REFERENCE_TOOLS, f"missing tools: {sorted(REFERENCE_TOOLS - served_tools)}")
    game = tool("chess_new_game", {"opponent": "engine"}, token=token)
    check(game.get("ply") == 0 and bool(game.get("gameId")), f"new game: {game}")
    moved = tool("chess_move", {"gameId": game["gameId"], "move": "e4", "expectedPly": 0}, token=token)
    check(moved.get("ply") == 2 and moved.get("status") == "active", f"after e4 and the engine's reply: {moved}")
    asked = tool("ask_question", {"question": FLIGHT, "title": "Book a Flight to Japan"}, token=token)
    form_id = asked.get("formId")
    check(bool(form_id), f"ask_question: {asked}")
    answer = {"destinationCity": "Tokyo", "departureDate": "2026-03-01"}
    key = last_meta.get("dgui_answer_key")
    check(isinstance(key, str), f"ask_question gave the widget no answer key: {sorted(last_meta)}")
    submitted = tool("submit_form", {"formId": form_id, "data": answer, "answerKey": key}, token=token)
    check(submitted.get("type") == "dgui_response", f"submit_form: {submitted}")
    stored = tool("get_form_response", {"formId": form_id}, token=token)
    check(stored.get("type") == "dgui_response", f"get_form_response: {stored}")


def under(root: Path, files: list[str]) -> list[str]:
    resolved = (Path(f).resolve() for f in files)
    return sorted({f.relative_to(root).as_posix() for f in resolved if f.is_relative_to(root)})


def modules_under(root: Path) -> list[str]:
    return under(root, [str(m.__file__) for m in list(sys.modules.values()) if getattr(m, "__file__", None)])


def main() -> int:
    global handler
    report: dict[str, Any] = {"python": sys.version.split()[0], "machine": platform.machine(), "steps": steps}
    report["executable"] = sys.executable
    error = None
    report["hook_verified"] = hook_records_a_source_compile()
    started = time.perf_counter()
    try:
        import widget_mcp.handler as module

        handler = module.handler
        report["import_seconds"] = round(time.perf_counter() - started, 3)
        report["compiled_at_init"] = list(compiled_from_source)
        cold_start_requests()
        if config["scenario"] == "smoke":
            stateful_session(config.get("token"))
    except StepFailed as exc:
        error = f"{steps[-1]['name']}: {exc}"
    except Exception as exc:  # noqa: BLE001 - reported, and the run fails
        import traceback

        error = "".join(traceback.format_exception(exc))[-4000:]
    report["error"] = error
    report["total_seconds"] = round(time.perf_counter() - started, 3)
    report["modules"] = {str(root): modules_under(root) for root in roots}
    report["code_loaded"] = {str(root): under(root, code_loaded) for root in roots}
    report["compiled_from_source"] = compiled_from_source
    report["token_checks_loaded"] = {"jwt.algorithms", "cryptography.hazmat.bindings._rust"} <= set(sys.modules)
    Path(config["report"]).write_text(json.dumps(report, indent=1))
    return 1 if error else 0


if __name__ == "__main__":
    sys.exit(main())
