"""Helpers for the browser tests: the playground's URLs, the widget frame, a plain MCP client for changing
state behind a widget's back, and the watch for Content-Security-Policy violations in every frame."""

from __future__ import annotations

import itertools
import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
from playwright.sync_api import Browser, BrowserContext, Error, Frame, FrameLocator, Locator, Page, Request, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

ROOT = Path(__file__).resolve().parents[2]
SUBJECT = "playground-user"  # what the playground sends as `openai/subject` when it plays ChatGPT
CHATGPT = {"openai/subject": SUBJECT}
_ids = itertools.count(1)

# Runs in every document before its own scripts (init scripts are not subject to the page's CSP): each
# `securitypolicyviolation` is kept in the document and reported to the test through a binding, so violations
# in documents that are gone by the end of the test are seen too. The playground's widget frames (srcdoc) are
# the exception: an init script can reach them after their scripts ran, so the playground listens in them
# itself and lists what it hears (`[data-testid="csp-violation"]`).
_CSP_RECORDER = """(() => {
  if (window.__cspViolations) return;
  const seen = (window.__cspViolations = []);
  window.addEventListener("securitypolicyviolation", (event) => {
    const violation = {
      id: `${Date.now()}-${Math.random()}`,
      directive: event.effectiveDirective,
      blocked: event.blockedURI,
      source: `${event.sourceFile}:${event.lineNumber}`,
      document: String(location.href).slice(0, 60),
    };
    seen.push(violation);
    try { window.__reportCspViolation?.(violation); } catch {}
  }, true);
})();"""
PLAYGROUND_VIOLATIONS = '[data-testid="csp-violation"]'


class CspWatch:
    """Every CSP violation reported in a browser context: by any document of the page, and by the playground
    for its widget frames."""

    def __init__(self, context: BrowserContext) -> None:
        self._seen: dict[str, dict[str, Any]] = {}
        self._cleared: set[str] = set()
        self._listed_cleared = 0
        context.expose_binding("__reportCspViolation", lambda _source, violation: self._keep(violation))
        context.add_init_script(_CSP_RECORDER)

    def _keep(self, violation: Any) -> None:
        if isinstance(violation, dict):
            self._seen.setdefault(str(violation.get("id")), violation)

    def violations(self, page: Page) -> list[str]:
        """What was reported so far, as `directive blocked what (source)` lines."""
        for frame in page.frames:
            for violation in _held(frame):
                self._keep(violation)
        recorded = [
            f"{v.get('directive')} blocked {v.get('blocked') or '-'} ({v.get('source')}, in {v.get('document')})"
            for key, v in self._seen.items()
            if key not in self._cleared
        ]
        return recorded + self._listed(page)[self._listed_cleared :]

    def clear(self, page: Page) -> None:
        """Forget what was seen so far (for a test that provokes violations on purpose)."""
        self._cleared.update(self._seen)
        self._listed_cleared = len(self._listed(page))

    @staticmethod
    def _listed(page: Page) -> list[str]:
        if page.is_closed():
            return []
        return page.locator(PLAYGROUND_VIOLATIONS).all_text_contents()


def _held(frame: Frame) -> list[Any]:
    try:
        held = frame.evaluate("() => window.__cspViolations || []")
    except Error:  # a frame detached while we asked: its reports came through the binding
        return []
    return held if isinstance(held, list) else []


class ToolCalls:
    """The `tools/call`s the page sends to /mcp (the playground calls through it for the widget), in order."""

    def __init__(self, page: Page) -> None:
        self.sent: list[dict[str, Any]] = []
        page.on("request", self._seen)

    def _seen(self, request: Request) -> None:
        if request.method != "POST" or not request.url.endswith("/mcp"):
            return
        body = json.loads(request.post_data or "null")
        if isinstance(body, dict) and body.get("method") == "tools/call":
            self.sent.append(body["params"])

    def names(self) -> list[str]:
        return [str(params.get("name")) for params in self.sent]


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

    def call_tool(self, name: str, args: dict[str, Any], meta: dict[str, Any] | None = None) -> dict[str, Any]:
        """tools/call through /mcp, the way another client (or tab) would: with no identity, as the playground's
        default MCP Apps host, unless `meta` carries one (`CHATGPT`: as its ChatGPT host)."""
        params: dict[str, Any] = {"name": name, "arguments": args}
        if meta:
            params["_meta"] = meta
        message = {"jsonrpc": "2.0", "id": next(_ids), "method": "tools/call", "params": params}
        answer = httpx.post(f"{self.base}/mcp", json=message, headers={"accept": "application/json"}, timeout=10)
        answer.raise_for_status()
        result: dict[str, Any] = answer.json()["result"]
        return result


def _renderers_of(root: int) -> list[int]:
    """The Chromium renderer processes under process `root` (through Playwright's driver and the browser)."""
    children: dict[int, list[tuple[int, str]]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat, open(f"/proc/{entry}/cmdline") as cmdline:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append((int(entry), cmdline.read()))
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
    found: list[int] = []
    todo = [root]
    while todo:
        for pid, command in children.get(todo.pop(), []):
            todo.append(pid)
            if "--type=renderer" in command:
                found.append(pid)
    return found


@contextmanager
def frozen_pages_killed_after(seconds: float) -> Iterator[None]:
    """Ends this test process's Chromium renderers if the block is still running after `seconds`. A page frozen
    by its script does not answer Playwright, whose waits then outlast their own timeouts; once its renderer is
    gone they fail ("Page crashed") and the test with them, instead of the run hanging (Linux: reads /proc)."""

    def kill() -> None:
        for pid in _renderers_of(os.getpid()):
            with suppress(ProcessLookupError):  # gone meanwhile
                os.kill(pid, signal.SIGKILL)

    timer = threading.Timer(seconds, kill)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def widget(page: Page) -> FrameLocator:
    return page.frame_locator('[data-testid="widget-frame"]')


# Resolves true once the widget frame's box has kept its place and size over several animation frames.
_FRAME_STILL = """(selector) => new Promise((resolve) => {
  const frame = document.querySelector(selector);
  if (!frame) return resolve(false);
  const box = () => JSON.stringify(frame.getBoundingClientRect());
  const first = box();
  let frames = 6;
  const next = () => {
    if (box() !== first) return resolve(false);
    if (--frames === 0) return resolve(true);
    requestAnimationFrame(next);
  };
  requestAnimationFrame(next);
})"""


def settled(page: Page, frame: str = '[data-testid="widget-frame"]') -> None:
    """Wait (bounded) until the widget frame (`frame`: its selector in the page) is on screen and no longer moving
    or resizing. A click computes its point inside the frame, then acts at page coordinates: a frame that grows to
    the height its widget just reported, or moves as the page above it lays out, turns that click into one on
    another square."""
    page.locator(frame).scroll_into_view_if_needed()
    page.wait_for_function(_FRAME_STILL, arg=frame, polling=100, timeout=15_000)


# Armed in the widget's frame before a click: notes where the next press of a pointer in that document lands (the
# press, not the click event: a widget may redraw what was pressed before the release).
_ARM_CLICK = """(target) => {
  window.__wmClick = null;
  window.addEventListener("pointerdown", (event) => {
    // A target the widget redrew since it was armed is no longer in the document: the press is taken as its.
    const hit = !target.isConnected || target.contains(event.target);
    window.__wmClick = hit ? "target" : String(event.target?.outerHTML).slice(0, 120);
  }, { once: true, capture: true });
}"""


def click_in_widget(page: Page, target: Locator, attempts: int = 3) -> None:
    """Click `target` in the widget frame once the frame has stopped growing, and make sure the click reached it.

    The widget's frame is an out-of-process iframe: Playwright aims at page coordinates, and the browser routes the
    mouse to whichever frame is under them then. A widget that has just grown (an error shown above its button)
    reports its new height and the host resizes the frame; the page above it may lay out late too. A click aimed
    meanwhile is pressed outside the frame, or released elsewhere, which is no click in the widget at all: that one
    is aimed again (up to `attempts` times). A click pressed on another element of the widget fails the test."""
    handle = target.element_handle()
    frame = handle.owner_frame() if handle else None
    assert frame is not None, "the click's target is in no frame"
    for _ in range(attempts):
        settled(page)
        target.evaluate(_ARM_CLICK)
        target.click()
        try:
            frame.wait_for_function("() => window.__wmClick !== null", polling=50, timeout=2_000)
        except PlaywrightTimeout:
            continue  # no press reached the widget's document: aimed again at the settled frame
        landed = frame.evaluate("() => window.__wmClick")
        assert landed == "target", f"the click meant for {target} was pressed on {landed}"
        return
    raise AssertionError(f"{attempts} clicks on {target} never reached the widget's frame")


def focus_in_transit(page: Page) -> bool:
    """Whether the keyboard focus is on its way into or out of a frame: a document holds a frame element as its
    active element, and that frame's document has not received the focus yet."""
    frame = page.main_frame
    while True:
        for child in frame.child_frames:
            try:
                holds = frame.evaluate("(element) => document.activeElement === element", child.frame_element())
                if holds and not child.evaluate("() => document.hasFocus()"):
                    return True
            except Error:  # a frame detached meanwhile: ask again
                return True
            if holds:
                frame = child
                break
        else:
            return False


def press(page: Page, key: str, timeout: float = 5.0) -> None:
    """Press `key`, then wait (bounded) until the focus has come to rest. A widget's frame is an out-of-process
    iframe: Tab from the page into it, or out of it, moves the focus after `press` returned, and a key pressed
    meanwhile goes to the document the focus is leaving."""
    page.keyboard.press(key)
    deadline = time.monotonic() + timeout
    while focus_in_transit(page):
        assert time.monotonic() < deadline, f"the focus was still moving {timeout} s after {key}"
        page.wait_for_timeout(20)


def widget_frame(page: Page) -> Frame:
    """The widget's frame itself (for evaluating in it), once the playground shows it."""
    handle = page.locator('[data-testid="widget-frame"]').element_handle()
    frame = handle.content_frame() if handle else None
    assert frame is not None, "the playground shows no widget frame"
    return frame


def square(frame: FrameLocator, name: str) -> Locator:
    return frame.locator(f'[data-square="{name}"]')


def chess(frame: FrameLocator) -> Locator:
    return frame.locator(".wm-chess")


def open_new_game(page: Page, server: DevServer, **args: Any) -> FrameLocator:
    page.goto(server.playground("chess_new_game", args))
    frame = widget(page)
    expect(chess(frame)).to_have_attribute("data-ply", "0")
    settled(page)
    return frame


def click_move(frame: FrameLocator, origin: str, target: str, ply_after: int) -> None:
    """Make a move on the playground's board, each click once the frame stopped growing (the move list gains a row
    every other ply, and the frame follows it)."""
    page = frame.owner.page
    click_in_widget(page, square(frame, origin))
    click_in_widget(page, square(frame, target))
    expect(chess(frame)).to_have_attribute("data-ply", str(ply_after))


@contextmanager
def watched_page(browser: Browser, timeout_ms: float, **context_options: Any) -> Iterator[Page]:
    """A page in a fresh context (`context_options`: Playwright's `new_context` keywords), as the `page` fixture gives
    one: after the block, it must have had no uncaught error and no CSP violation in any of its frames."""
    context = browser.new_context(**context_options)
    try:
        context.set_default_timeout(timeout_ms)
        watch = CspWatch(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        yield page
        violations = watch.violations(page)
        assert not errors, f"uncaught errors in the page: {errors}"
        assert not violations, f"Content-Security-Policy violations: {violations}"
    finally:
        context.close()


@contextmanager
def phone_page(browser: Browser, width: int) -> Iterator[Page]:
    """A touch screen `width` px wide, watched like the `page` fixture's."""
    phone = {"viewport": {"width": width, "height": 740}, "has_touch": True, "is_mobile": True}
    with watched_page(browser, 10_000, device_scale_factor=2, **phone) as page:
        yield page


# Measured inside the chess widget's own frame: its scroll width, the squares' sizes and whether a tap on the middle
# of each square lands on it, and which of the head's controls are drawn whole within the frame's width.
_BOARD_LAYOUT = """(controls) => {
  const doc = document.documentElement;
  const squares = [...document.querySelectorAll("[data-square]")];
  const boxes = squares.map((node) => node.getBoundingClientRect());
  const inside = (r) => r.width > 0 && r.height > 0 && r.left >= 0 && r.right <= doc.clientWidth;
  return {
    scrollWidth: doc.scrollWidth,
    clientWidth: doc.clientWidth,
    smallest: Math.min(...boxes.map((r) => Math.min(r.width, r.height))),
    missed: squares.filter((node, i) => {
      const r = boxes[i];
      return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)?.closest("[data-square]") !== node;
    }).map((node) => node.dataset.square),
    controls: Object.fromEntries(controls.map((id) => {
      const node = document.querySelector(`[data-testid="${id}"]`);
      return [id, Boolean(node && inside(node.getBoundingClientRect()))];
    })),
  };
}"""
BOARD_CONTROLS = ["chess-status", "chess-ask", "chess-flip", "chess-fullscreen"]


def assert_board_fits_a_phone(frame: Frame, width: int) -> None:
    """The chess board in `frame` (the widget's own frame, shown whole by its host) has no sideways scroll, squares
    of 32 px or more that a tap on their middle reaches, and every control of its head on screen."""
    frame.wait_for_function("() => innerHeight >= Math.ceil(document.documentElement.getBoundingClientRect().height)")
    measured: dict[str, Any] = frame.evaluate(_BOARD_LAYOUT, BOARD_CONTROLS)
    assert measured["scrollWidth"] <= measured["clientWidth"], f"the frame scrolls sideways: {measured}"
    assert measured["smallest"] >= 32, f"a square is {measured['smallest']:.1f} px at {width} px"
    assert measured["missed"] == []  # nothing covers a square where a finger lands
    assert measured["controls"] == dict.fromkeys(BOARD_CONTROLS, True)
