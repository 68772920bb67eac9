"""`make submission`'s screenshots, rendered from the playground in Chromium for one listed app (the first the
registry lists, to keep the layer short): one ChatGPT PNG per starter prompt, exactly 706 px wide and 400-860 px tall,
and 3-5 Claude PNGs at least 1,000 px wide, sizes read back from the files; the Claude listing names each. A PNG of
the wrong size is refused with a sentence: tests/unit/test_screenshot_sizes.py, which needs no browser."""

from __future__ import annotations

from pathlib import Path

from browser_support import DevServer
from widget_mcp.apps.books import AppContext, load_books
from widget_mcp.apps.registry import APPS, app_name
from widget_mcp.publishing import screenshots
from widget_mcp.publishing.submission import claude_listing
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore

BOOKS = dict(zip(APPS, load_books(AppContext(Settings(), InMemoryDocumentStore()), APPS), strict=True))
APP, BOOK = next((app_name(entry), book) for entry, book in BOOKS.items() if book.listing is not None)


def test_the_screenshots_have_each_directorys_exact_sizes_and_the_listing_names_them(
    dev_server: DevServer, tmp_path: Path
) -> None:
    assert BOOK.listing is not None
    paths = screenshots.render(APP, BOOK, tmp_path, base=dev_server.base)
    chatgpt = [p for p in paths if p.name.startswith("chatgpt-")]
    claude = [p for p in paths if p.name.startswith("claude-")]
    assert len(chatgpt) == len(BOOK.listing.starter_prompts)
    for path in chatgpt:
        width, height = screenshots.png_size(path)
        assert width == 706
        assert 400 <= height <= 860
    assert 3 <= len(claude) <= 5
    assert all(screenshots.png_size(p)[0] >= 1000 for p in claude)
    assert screenshots.check(paths) == []
    listing = claude_listing(BOOK, url="https://x.example/mcp", screenshots=[p.name for p in paths])
    assert all(f"(screenshots/{p.name})" in listing for p in paths)
