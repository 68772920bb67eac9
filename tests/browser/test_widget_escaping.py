"""Model and user text is rendered as text: an XSS corpus through every display renderer runs nothing."""

from __future__ import annotations

from typing import Any

from browser_support import DevServer, widget
from playwright.sync_api import Dialog, FrameLocator, Page, expect

CORPUS = [
    '<script>window.__xss = "script"</script>',
    "<img src=x onerror=\"window.__xss='img'\">",
    "<a href=\"javascript:window.__xss='link'\">click me</a>",
    '"><svg onload="window.__xss=\'svg\'">',
    "javascript:window.__xss='url'",
    "<iframe srcdoc=\"<script>parent.__xss='frame'</script>\"></iframe>",
    "</p><style>body{display:none}</style>",
]
INJECTED = "#root script, #root img, #root svg, #root iframe, #root style, #root a[href^='javascript']"


def watch_dialogs(page: Page) -> list[str]:
    seen: list[str] = []

    def record(dialog: Dialog) -> None:
        seen.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", record)
    return seen


def assert_inert(page: Page, frame: FrameLocator, dialogs: list[str]) -> None:
    expect(frame.locator(INJECTED)).to_have_count(0)
    assert frame.locator("html").evaluate("() => window.__xss") is None
    assert not dialogs


def test_an_xss_corpus_in_every_display_renderer_is_shown_as_text_and_runs_nothing(
    page: Page, dev_server: DevServer
) -> None:
    dialogs = watch_dialogs(page)
    widgets: list[dict[str, Any]] = []
    for index, text in enumerate(CORPUS):
        widgets += [
            {"widget": "text", "data": {"text": text}, "fallback": text},
            {"widget": "table", "data": {"title": text, "rows": [[text, text]]}, "fallback": text},
            {"widget": "move-list", "data": {"moves": [text], "pgn": text}, "fallback": text},
            {"widget": f"unknown-{index}", "data": text, "fallback": text},
        ]
    result = {"content": [], "structuredContent": {}, "_meta": {"widgets": widgets}, "isError": False}
    page.goto(dev_server.preview("display", result))
    frame = widget(page)
    expect(frame.locator("[data-widget]")).to_have_count(len(widgets))
    for index, text in enumerate(CORPUS):
        expect(frame.locator('[data-widget="text"]').nth(index)).to_have_text(text)
        expect(frame.locator(f'[data-widget="unknown-{index}"] [data-fallback]')).to_have_text(text)
        expect(frame.locator('[data-widget="table"] th').nth(index)).to_have_text(text)
    assert_inert(page, frame, dialogs)


def test_a_message_full_of_markup_comes_back_from_a_real_tool_as_literal_text(
    page: Page, dev_server: DevServer
) -> None:
    dialogs = watch_dialogs(page)
    message = " ".join(CORPUS)
    page.goto(dev_server.playground("display_demo", {"message": message}))
    frame = widget(page)
    expect(frame.locator('[data-widget="text"]')).to_have_text(message)
    assert_inert(page, frame, dialogs)
    # The activity panel shows the escaped preview as text too, not as markup.
    preview = page.locator('[data-testid="event-preview"]').last
    expect(preview).to_contain_text("<script>")
    expect(page.locator('[data-testid="activity"] script, [data-testid="activity"] img')).to_have_count(0)
