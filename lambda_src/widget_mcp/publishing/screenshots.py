"""The directories' screenshots, rendered from the playground (`make submission`): each shot makes a review case's
tool calls against a local server (`make dev`'s, on moto) and shows the last widget the case opens, in Debian's
Chromium driven by Playwright (never a downloaded browser). ChatGPT: one PNG per starter prompt, exactly 706 px
wide and 400-860 px tall; Claude: 3-5 PNGs at least 1,000 px wide. Sizes are read back from the files."""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import httpx

from widget_mcp.toolkit.listing import REFERENCE_CLOSE, REFERENCE_OPEN, ReviewCall, ReviewCase
from widget_mcp.toolkit.tools import ToolBook

if TYPE_CHECKING:
    from playwright.sync_api import Page

CHATGPT_WIDTH, CHATGPT_HEIGHTS = 706, (400, 860)
CLAUDE_MIN_WIDTH, CLAUDE_COUNT = 1000, (3, 5)
CLAUDE_SIZE = (1280, 800)
# Fills the page with the widget frame, so the shot is the widget at the directory's size, not the playground.
_FILL = (
    '[data-testid="widget-frame"]{position:fixed!important;inset:0!important;width:100vw!important;'
    "height:100vh!important;max-width:none!important;z-index:2147483647!important;border:0!important;"
    "background:Canvas!important}"
)
# The playground plays ChatGPT with this user (widget_bundles/src/playground/hosts.ts): the shots then show a user's
# own data (a list of games) rather than what a caller without identity is told.
HOST, SUBJECT = "chatgpt", "playground-user"
_CONTENT_HEIGHT = "Math.ceil(document.getElementById('root').getBoundingClientRect().bottom) + 16"
_TWO_FRAMES = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
_REFERENCE = re.compile(re.escape(REFERENCE_OPEN) + r"(\w+)" + re.escape(REFERENCE_CLOSE))


class ScreenshotError(RuntimeError):
    """A shot could not be made; the message says which and why."""


@dataclass(frozen=True)
class Shot:
    name: str
    case: ReviewCase
    size: tuple[int, int]  # the viewport; ChatGPT's height follows the widget within its range


def png_size(path: Path) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    head = path.read_bytes()[:24]
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise ScreenshotError(f"{path} is not a PNG")
    width, height = struct.unpack(">II", head[16:24])
    return int(width), int(height)


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def case_for(prompt: str, cases: Sequence[ReviewCase]) -> ReviewCase:
    """The review case a starter prompt opens: the same prompt, else the one sharing most of its words."""
    for case in cases:
        if case.prompt == prompt:
            return case
    words = _words(prompt)
    return max(cases, key=lambda c: len(words & _words(c.prompt)) / len(words | _words(c.prompt)))


def plan(app: str, book: ToolBook) -> list[Shot]:
    assert book.listing is not None
    cases = list(book.review_cases)
    if not cases:
        raise ScreenshotError(f"{app} declares no review cases to render")
    shots = [
        Shot(f"chatgpt-{n}.png", case_for(prompt, cases), (CHATGPT_WIDTH, CHATGPT_HEIGHTS[1]))
        for n, prompt in enumerate(book.listing.starter_prompts, start=1)
    ]
    claude = cases[: CLAUDE_COUNT[1]]
    while len(claude) < CLAUDE_COUNT[0]:
        claude.append(cases[len(claude) % len(cases)])
    shots += [Shot(f"claude-{n}.png", case, CLAUDE_SIZE) for n, case in enumerate(claude, start=1)]
    return shots


def _resolve(value: Any, found: Mapping[str, Any]) -> Any:
    if isinstance(value, str):
        match = _REFERENCE.fullmatch(value)
        return found.get(match.group(1), value) if match else value
    if isinstance(value, dict):
        return {k: _resolve(v, found) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, found) for v in value]
    return value


def _call(base: str, call: ReviewCall, found: Mapping[str, Any]) -> dict[str, Any]:
    """A call the case makes before the one shown, through /mcp as the playground's host makes it (its user)."""
    params = {
        "name": call.tool,
        "arguments": _resolve(dict(call.arguments), found),
        "_meta": {"openai/subject": SUBJECT},
    }
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    answer = httpx.post(f"{base}/mcp", json=message, headers={"accept": "application/json"}, timeout=30)
    answer.raise_for_status()
    result: dict[str, Any] = answer.json().get("result") or {}
    if result.get("isError"):
        raise ScreenshotError(f"{call.tool} failed while preparing a screenshot: {result.get('content')}")
    return dict(result.get("structuredContent") or {})


def _shown(book: ToolBook, case: ReviewCase) -> int:
    """The index of the call whose widget the shot shows: the last call of a tool with a widget, else the last."""
    widgets = [i for i, call in enumerate(case.calls) if book.tools[call.tool].widget is not None]
    return widgets[-1] if widgets else len(case.calls) - 1


def _render(page: Page, base: str, book: ToolBook, shot: Shot, out: Path) -> Path:
    found: dict[str, Any] = {}
    shown = _shown(book, shot.case)
    for call in shot.case.calls[:shown]:
        found.update(_call(base, call, found))
    call = shot.case.calls[shown]
    args = json.dumps(_resolve(dict(call.arguments), found))
    page.set_viewport_size({"width": shot.size[0], "height": shot.size[1]})
    page.goto(f"{base}/playground?tool={quote(call.tool)}&args={quote(args)}&host={HOST}")
    frame = page.locator('[data-testid="widget-frame"]')
    frame.wait_for(state="visible", timeout=20_000)
    # The widget has rendered once its root holds something (the host then sizes the frame to its reported height).
    page.frame_locator('[data-testid="widget-frame"]').locator("#root > *").first.wait_for(timeout=20_000)
    page.add_style_tag(content=_FILL)
    page.evaluate(_TWO_FRAMES)
    if shot.name.startswith("chatgpt-"):
        # As tall as the widget at this width, within ChatGPT's range.
        handle = frame.element_handle()
        inner = handle.content_frame() if handle else None
        wanted = int(inner.evaluate(_CONTENT_HEIGHT)) if inner else CHATGPT_HEIGHTS[0]
        height = min(max(wanted, CHATGPT_HEIGHTS[0]), CHATGPT_HEIGHTS[1])
        page.set_viewport_size({"width": shot.size[0], "height": height})
        page.evaluate(_TWO_FRAMES)
    path = out / shot.name
    page.screenshot(path=str(path))
    return path


@contextmanager
def _browser() -> Iterator[Page]:
    from playwright.sync_api import sync_playwright

    from widget_mcp.local.chromium import CHROMIUM_ARGS, ChromiumNotFound, find_chromium

    try:
        chromium = find_chromium()
    except ChromiumNotFound as exc:
        raise ScreenshotError(f"screenshots need Chromium: {exc}") from None
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, args=list(CHROMIUM_ARGS))
        try:
            yield browser.new_page()
        finally:
            browser.close()


def check(paths: Sequence[Path]) -> list[str]:
    """One sentence per shot whose size a directory refuses, read back from the files."""
    found = []
    claude = [p for p in paths if p.name.startswith("claude-")]
    for path in paths:
        width, height = png_size(path)
        if path.name.startswith("chatgpt-") and (
            width != CHATGPT_WIDTH or not CHATGPT_HEIGHTS[0] <= height <= CHATGPT_HEIGHTS[1]
        ):
            found.append(f"{path.name} is {width}×{height}; ChatGPT asks for {CHATGPT_WIDTH} px wide, 400-860 tall.")
        if path.name.startswith("claude-") and width < CLAUDE_MIN_WIDTH:
            found.append(f"{path.name} is {width} px wide; Claude asks for at least {CLAUDE_MIN_WIDTH}.")
    if not CLAUDE_COUNT[0] <= len(claude) <= CLAUDE_COUNT[1]:
        found.append(f"{len(claude)} Claude screenshots; Claude asks for 3 to 5.")
    return found


def render(app: str, book: ToolBook, out: Path, *, base: str | None = None) -> list[Path]:
    """Render every shot into `out` (replacing earlier ones); `base`: a running local server, else one is started."""
    from widget_mcp.local.process import local_server

    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.png"):
        old.unlink()
    shots = plan(app, book)

    def run(url: str) -> list[Path]:
        with _browser() as page:
            return [_render(page, url, book, shot, out) for shot in shots]

    if base is not None:
        return run(base)
    with local_server("screenshots", settings={"APPS": app}) as server:
        return run(server.base)
