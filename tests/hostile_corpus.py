"""The corpus of hostile inputs (tests/hostile/*.json) and how to replay it through a client.

Each entry is a JSON file: `about` (what it attacks) and `steps`, each a tool call with its `arguments` and the
outcome it must get (`expect`: "ok", an error code, or `http_<status>` for a request the endpoint refuses before
any tool runs); where the in-memory client and the HTTP endpoint differ, `expect` names each:
`{"client": …, "endpoint": …}`. Arguments may hold:
- `{"$repeat": value, "times": n}`: a string repeated n times, or a list of n copies of `value`'s items;
- the text `"$formId"` / `"$gameId"`: the id the entry's last ask_question / chess_new_game returned.
The tests (tests/functional/test_hostile_inputs.py) assert each outcome; `python -m bench.security` times them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import Client

CORPUS = Path(__file__).resolve().parent / "hostile"
CALLER = {"openai/subject": "hostile-tester"}
# Which result field names the id later steps refer to.
IDS = {"ask_question": ("$formId", "formId"), "chess_new_game": ("$gameId", "gameId")}


@dataclass(frozen=True)
class Step:
    tool: str
    arguments: dict[str, Any]
    expect: str | dict[str, str]

    def expected(self, path: str) -> str:
        """The outcome over `path` ("client" or "endpoint")."""
        return self.expect if isinstance(self.expect, str) else self.expect[path]


@dataclass(frozen=True)
class Entry:
    name: str
    about: str
    steps: tuple[Step, ...]


def _expand(value: Any) -> Any:
    if isinstance(value, dict):
        if "$repeat" in value:
            item, times = value["$repeat"], value["times"]
            return item * times if isinstance(item, (str, list)) else [item] * times
        return {key: _expand(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_expand(item) for item in value]
    return value


def load(name: str) -> Entry:
    raw = json.loads((CORPUS / f"{name}.json").read_text())
    steps = tuple(Step(s["tool"], _expand(s["arguments"]), s["expect"]) for s in raw["steps"])
    return Entry(name, raw["about"], steps)


def names() -> list[str]:
    return sorted(path.stem for path in CORPUS.glob("*.json"))


def _bind(value: Any, ids: dict[str, str]) -> Any:
    if isinstance(value, str) and value in ids:
        return ids[value]
    if isinstance(value, dict):
        return {key: _bind(item, ids) for key, item in value.items()}
    return value


def outcome_of(result: Any) -> str:
    """ "ok", or the error code in `_meta.error` (where every error result carries it)."""
    if not result.is_error:
        return "ok"
    error = (result.meta or {}).get("error") or {}
    return str(error.get("code", "(no code)"))


def _keep_id(step: Step, structured: dict[str, Any] | None, ids: dict[str, str]) -> None:
    if step.tool in IDS and structured:
        placeholder, field = IDS[step.tool]
        ids[placeholder] = structured[field]


def request_body(step: Step, ids: dict[str, str]) -> bytes:
    params = {"name": step.tool, "arguments": _bind(step.arguments, ids), "_meta": CALLER}
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).encode()


def read_reply(step: Step, status: int, body: bytes, ids: dict[str, str]) -> tuple[str, str]:
    """(outcome, message) of the endpoint's reply: `http_<status>` when it refused the request itself."""
    reply = json.loads(body)
    if status != 200 or "error" in reply:
        return f"http_{status}", reply["error"]["message"]
    result = reply["result"]
    if not result.get("isError"):
        _keep_id(step, result.get("structuredContent"), ids)
        return "ok", ""
    error = result["_meta"]["error"]
    return error["code"], error["message"]


async def call(client: Client, step: Step, ids: dict[str, str]) -> Any:
    """The step's result, called through `client` (already entered) as the corpus's one caller; an id it
    returns is kept in `ids` for the entry's later steps."""
    result = await client.call_tool(step.tool, _bind(step.arguments, ids), meta=CALLER)
    if not result.is_error:
        _keep_id(step, result.structured_content, ids)
    return result
