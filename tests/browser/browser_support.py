"""Helpers for the browser tests: the playground's URLs, the widget frame, and a plain MCP client for
changing state behind a widget's back."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
from playwright.sync_api import FrameLocator, Locator, Page, expect

ROOT = Path(__file__).resolve().parents[2]
SUBJECT = "playground-user"  # what the playground sends as `openai/subject`
_ids = itertools.count(1)


@dataclass(frozen=True)
class DevServer:
    base: str

    def playground(self, tool: str, args: dict[str, Any] | None = None, **extra: str) -> str:
        query = f"tool={quote(tool)}&args={quote(json.dumps(args or {}))}"
        return self._with(query, extra)

    def preview(self, template: str, result: dict[str, Any], **extra: str) -> str:
        """Render a template with a given result (no tool call): the playground's ?template=&result= mode."""
        query = f"template={quote(template)}&result={quote(json.dumps(result))}"
        return self._with(query, extra)

    def _with(self, query: str, extra: dict[str, str]) -> str:
        rest = "".join(f"&{k}={quote(v)}" for k, v in extra.items())
        return f"{self.base}/playground?{query}{rest}"

    def call_tool(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """tools/call through /mcp as the playground user, the way another client (or tab) would."""
        message = {
            "jsonrpc": "2.0",
            "id": next(_ids),
            "method": "tools/call",
            "params": {"name": name, "arguments": args, "_meta": {"openai/subject": SUBJECT}},
        }
        answer = httpx.post(f"{self.base}/mcp", json=message, headers={"accept": "application/json"}, timeout=10)
        answer.raise_for_status()
        result: dict[str, Any] = answer.json()["result"]
        return result


def widget(page: Page) -> FrameLocator:
    return page.frame_locator('[data-testid="widget-frame"]')


def square(frame: FrameLocator, name: str) -> Locator:
    return frame.locator(f'[data-square="{name}"]')


def chess(frame: FrameLocator) -> Locator:
    return frame.locator(".wm-chess")


def open_new_game(page: Page, server: DevServer, **args: Any) -> FrameLocator:
    page.goto(server.playground("chess_new_game", args))
    frame = widget(page)
    expect(chess(frame)).to_have_attribute("data-ply", "0")
    return frame


def click_move(frame: FrameLocator, origin: str, target: str, ply_after: int) -> None:
    square(frame, origin).click()
    square(frame, target).click()
    expect(chess(frame)).to_have_attribute("data-ply", str(ply_after))
