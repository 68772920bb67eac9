"""`make submission`'s screenshots, rendered from the playground in Chromium for one listed app (the first the
registry lists, to keep the layer short): one ChatGPT PNG per starter prompt, exactly 706 px wide and 400-860 px tall,
and 3-5 Claude PNGs at least 1,000 px wide, sizes read back from the files; the Claude listing names each; a PNG of
the wrong size is refused with a sentence."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

from browser_support import DevServer
from widget_mcp.apps.registry import APPS, AppContext, app_name, load_books
from widget_mcp.publishing import screenshots
from widget_mcp.publishing.submission import claude_listing
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore

BOOKS = dict(zip(APPS, load_books(AppContext(Settings(), InMemoryDocumentStore()), APPS), strict=True))
APP, BOOK = next((app_name(entry), book) for entry, book in BOOKS.items() if book.listing is not None)


def _png(path: Path, width: int, height: int) -> Path:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\xff" * (3 * width) for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
    )
    return path


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


def test_a_screenshot_of_the_wrong_size_is_refused_with_a_sentence(tmp_path: Path) -> None:
    wide = _png(tmp_path / "chatgpt-1.png", 800, 500)
    short = _png(tmp_path / "chatgpt-2.png", 706, 300)
    narrow = [_png(tmp_path / f"claude-{n}.png", 900, 600) for n in (1, 2, 3)]
    found = screenshots.check([wide, short, *narrow])
    assert "chatgpt-1.png is 800×500; ChatGPT asks for 706 px wide, 400-860 tall." in found
    assert any(s.startswith("chatgpt-2.png is 706×300") for s in found)
    assert sum("Claude asks for at least 1000" in s for s in found) == 3
    assert "2 Claude screenshots; Claude asks for 3 to 5." in screenshots.check(narrow[:2])
