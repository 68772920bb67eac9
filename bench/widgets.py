"""Ours only: widget bundle sizes and first render in headless Chromium.

Sizes: the gzip (-9) size of everything a widget's template loads (its entry, the shared chunks it imports
and its CSS), per file as a server would send them. Render: the local server runs as `make dev` runs it; the
playground calls a tool and the widget marks its first render (`performance.mark`) — the time from the widget
frame's navigation start to that mark, in a fresh browser context (cold cache) per run, median of the runs.
"""

from __future__ import annotations

import gzip
import json
import statistics
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from playwright.sync_api import Browser, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "widget_bundles" / "dist"
BUDGETS_KB = {"chess-board": 60.0, "display": 55.0, "form": 120.0}
RENDERS = {  # widget: (tool, arguments, selector of the rendered widget, the mark it sets)
    "chess-board": ("chess_new_game", {}, "[data-square]", "wm:first-board"),
    "display": ("display_demo", {"message": "bench"}, "[data-widget]", "wm:display-rendered"),
}


def gzip_kb(entry: dict[str, Any]) -> float:
    files = [entry["js"], *entry.get("imports", []), *entry.get("css", [])]
    return sum(len(gzip.compress((DIST / f).read_bytes(), compresslevel=9)) for f in files) / 1024


def bundle_sizes_kb() -> dict[str, float]:
    manifest = json.loads((DIST / "manifest.json").read_text())["entries"]
    return {name: gzip_kb(manifest[name]) for name in BUDGETS_KB}


@contextmanager
def dev_server() -> Iterator[str]:
    from widget_mcp.local.process import local_server

    with local_server("bench-state") as server:
        yield server.base


def first_render_ms(browser: Browser, url: str, selector: str, mark: str) -> float:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(url)
        frame = page.frame_locator('[data-testid="widget-frame"]')
        frame.locator(selector).first.wait_for(timeout=15_000)
        started: float = frame.locator("html").evaluate(
            f"() => performance.getEntriesByName({json.dumps(mark)})[0].startTime"
        )
        return started
    finally:
        context.close()


def first_renders_ms(runs: int) -> dict[str, float]:
    """Median milliseconds from frame start to first render, per widget."""
    from widget_mcp.local.chromium import CHROMIUM_ARGS, find_chromium

    medians = {}
    with dev_server() as base, sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=find_chromium(), args=list(CHROMIUM_ARGS))
        try:
            for widget, (tool, tool_args, selector, mark) in RENDERS.items():
                url = f"{base}/playground?tool={tool}&args={quote(json.dumps(tool_args))}"
                first_render_ms(browser, url, selector, mark)  # warm the server and the OS caches; not counted
                medians[widget] = statistics.median(first_render_ms(browser, url, selector, mark) for _ in range(runs))
        finally:
            browser.close()
    return medians


if __name__ == "__main__":  # `python -m bench.widgets`: the sizes alone, against their budgets (no server needed)
    for name, size in bundle_sizes_kb().items():
        budget = BUDGETS_KB[name]
        print(f"{name:12} {size:6.1f} KB gzip  budget {budget:5.1f} KB  {'ok' if size <= budget else 'OVER'}")
