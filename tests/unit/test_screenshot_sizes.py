"""`make submission`'s size check, on PNGs written here (no browser): a screenshot of a size the directory refuses is
named in a sentence saying what that directory asks for, and so is a count of Claude screenshots outside 3-5."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

from widget_mcp.publishing import screenshots


def _png(path: Path, width: int, height: int) -> Path:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\xff" * (3 * width) for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
    )
    return path


def test_a_screenshot_of_the_wrong_size_is_refused_with_a_sentence(tmp_path: Path) -> None:
    wide = _png(tmp_path / "chatgpt-1.png", 800, 500)
    short = _png(tmp_path / "chatgpt-2.png", 706, 300)
    narrow = [_png(tmp_path / f"claude-{n}.png", 900, 600) for n in (1, 2, 3)]
    found = screenshots.check([wide, short, *narrow])
    assert "chatgpt-1.png is 800×500; ChatGPT asks for 706 px wide, 400-860 tall." in found
    assert any(s.startswith("chatgpt-2.png is 706×300") for s in found)
    assert sum("Claude asks for at least 1000" in s for s in found) == 3
    assert "2 Claude screenshots; Claude asks for 3 to 5." in screenshots.check(narrow[:2])
