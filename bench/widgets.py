"""Benchmark: widget bundle budgets and first render in headless Chromium.

    python -m bench.widgets [--runs 5]

Sizes: the gzip (-9) size of everything a widget's template loads (its entry, the shared chunks it imports
and its CSS), per file as a server would send them, against the budget. Render: the local server runs as
`make dev` runs it; the playground opens a new game and the chess board marks its first render
(`performance.mark("wm:first-board")`) — the time from the widget frame's navigation start to that mark, in
a fresh browser context (cold cache) per run, median of the runs; the display host likewise.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from playwright.sync_api import Browser, sync_playwright
from widget_mcp.local.chromium import CHROMIUM, CHROMIUM_ARGS

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "widget_bundles" / "dist"
BUDGETS_KB = {"chess-board": 60.0, "display": 40.0, "form": 120.0}


def gzip_kb(entry: dict[str, Any]) -> tuple[float, int]:
    files = [entry["js"], *entry.get("imports", []), *entry.get("css", [])]
    total = sum(len(gzip.compress((DIST / f).read_bytes(), compresslevel=9)) for f in files)
    return total / 1024, len(files)


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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    manifest = json.loads((DIST / "manifest.json").read_text())["entries"]

    print(f"{'widget bundle (gzip -9)':32} {'size':>10} {'files':>6}  {'ratio':>6}  target")
    for name, budget in BUDGETS_KB.items():
        size, count = gzip_kb(manifest[name])
        verdict = "met" if size <= budget else "missed"
        print(f"{name:32} {size:8.1f}KB {count:6d}  {size / budget:6.3f}  <= {budget:.0f} KB ({verdict})")

    cases = {
        "chess board first render": ("chess_new_game", {}, "[data-square]", "wm:first-board"),
        "display host first render": ("display_demo", {"message": "bench"}, "[data-widget]", "wm:display-rendered"),
    }
    with dev_server() as base, sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))
        try:
            print(f"\n{'measure (frame start → render)':32} {'median':>10} {'min':>9} {'max':>9}  runs")
            for label, (tool, tool_args, selector, mark) in cases.items():
                url = f"{base}/playground?tool={tool}&args={quote(json.dumps(tool_args))}"
                first_render_ms(browser, url, selector, mark)  # warm the server and the OS caches; not counted
                times = [first_render_ms(browser, url, selector, mark) for _ in range(args.runs)]
                median = statistics.median(times)
                print(f"{label:32} {median:8.1f}ms {min(times):7.1f}ms {max(times):7.1f}ms  {len(times)}")
        finally:
            browser.close()


if __name__ == "__main__":
    main()
