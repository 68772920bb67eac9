"""`python -m bench.result_tokens`: what the reference apps' typical results cost a model that reads only their text.

Each result is made by the real runtime on the in-memory store, as a host would get it. For each the table gives
the narration, the structuredContent serialized after it, and the display widgets' fallbacks, in characters, and
the whole text in tokens, approximated as characters / 4 (no tokenizer is installed; for JSON full of short keys
and FEN-like strings the real count runs somewhat higher). The last two columns are the result's `_meta` as JSON,
which a framework that hands its model the whole result (google-adk) adds to that. The docs' pages "What the model
reads" (docs/widgets.md) and "Tested clients" (docs/identity.md) quote it.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Mapping
from typing import Any

from bench.chess import MIDDLE_PLY, quiet_game
from tests.form_keys import keep_key, keyed

ALICE = {"openai/subject": "bench-alice"}
WIDGET_HOST: dict[str, Any] = {
    "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}
}


def _runtime() -> Any:
    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    from widget_mcp.settings import Settings
    from widget_mcp.storage.memory import InMemoryDocumentStore
    from widget_mcp.wiring import build_core

    settings = Settings(
        allowed_hosts=("localhost:*",), widget_base_url="http://localhost/widgets", table_name="bench-state"
    )
    return build_core(settings, store=InMemoryDocumentStore()).runtime


def _split(result: Mapping[str, Any]) -> tuple[int, int, int]:
    """(narration, serialized structuredContent, everything after) in characters of text."""
    texts = [block.get("text", "") for block in result["content"] if block.get("type") == "text"]
    serialized = len(texts[1]) if "structuredContent" in result else 0
    rest = sum(len(t) for t in texts[2 if serialized else 1 :])
    return len(texts[0]), serialized, rest


async def _results() -> list[tuple[str, dict[str, Any]]]:
    from widget_mcp.apps.forms.inputs import EXAMPLE_QUESTION
    from widget_mcp.toolkit.call import CallerClient

    runtime = _runtime()
    widgets = CallerClient(stateless_protocol=True, capabilities=WIDGET_HOST)
    eliciting = CallerClient(stateless_protocol=True, capabilities={"elicitation": {}})

    async def call(tool: str, args: dict[str, Any], client: CallerClient = widgets, **more: Any) -> dict[str, Any]:
        result: dict[str, Any] = await runtime.call(tool, args, ALICE, client=client, **more)
        if result.get("isError") or result.get("resultType") == "input_required":
            raise SystemExit(f"{tool} did not answer as expected: {result}")
        return result

    out: list[tuple[str, dict[str, Any]]] = []
    created = await call("chess_new_game", {})
    out.append(("chess_new_game", created))
    game = created["structuredContent"]["gameId"]
    out.append(("chess_move, opening (ply 0 → 1)", await call("chess_move", {"gameId": game, "move": "e4"})))
    moves, following = quiet_game(MIDDLE_PLY)
    deep = (await call("chess_new_game", {}))["structuredContent"]["gameId"]
    for uci in moves:
        await call("chess_move", {"gameId": deep, "move": uci})
    shown = await call("chess_move", {"gameId": deep, "move": following})
    out.append((f"chess_move, ply {MIDDLE_PLY} → {MIDDLE_PLY + 1}", shown))
    out.append(("chess_show_game (board + move list)", await call("chess_show_game", {"gameId": deep})))
    asked = keep_key(await call("ask_question", {"question": EXAMPLE_QUESTION, "title": "A quick question"}))
    out.append(("ask_question (widget host: the form)", asked))
    form = asked["structuredContent"]["formId"]
    await call("submit_form", keyed({"formId": form, "data": {"name": "Ada", "rating": 5}}))  # as its widget sends it
    out.append(("get_form_response (answered)", await call("get_form_response", {"formId": form})))
    question = {"question": EXAMPLE_QUESTION, "title": "A quick question"}
    first = await runtime.call("ask_question", question, ALICE, client=eliciting)
    answers = {"form": {"action": "accept", "content": {"name": "Ada", "rating": 5}}}
    native = await call(
        "ask_question", question, eliciting, input_responses=answers, request_state=first["requestState"]
    )
    out.append(("ask_question (native form: the answer)", native))
    out.append(("display_demo (two widgets)", await call("display_demo", {"message": "hello big world"})))
    return out


def main() -> None:
    print(
        "| result | narration | structuredContent as JSON | fallbacks | text in all | ≈ tokens (chars / 4) "
        "| `_meta` as JSON | ≈ `_meta` tokens |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, result in asyncio.run(_results()):
        narration, serialized, rest = _split(result)
        total = narration + serialized + rest
        meta = len(json.dumps(result.get("_meta") or {}, ensure_ascii=False, separators=(",", ":")))
        text_cells = f"{narration} | {serialized} | {rest} | {total} | {round(total / 4)}"
        print(f"| {label} | {text_cells} | {meta} | {round(meta / 4)} |")


if __name__ == "__main__":
    main()
