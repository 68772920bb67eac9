"""Playing the chess board with the keyboard alone, in whichever host shows it: Tab to the board, arrow keys to a
square, Enter or Space to pick a piece up and put it down. `frame` is the widget's own frame (for reading where
the focus is), `view` the same frame as a locator."""

from __future__ import annotations

from browser_support import chess, press, square
from playwright.sync_api import Frame, FrameLocator, Page, expect


def focused(frame: Frame) -> str | None:
    """The square that has the keyboard focus in the widget (None: the focus is elsewhere)."""
    value = frame.evaluate("() => document.activeElement?.dataset?.square ?? null")
    return value if isinstance(value, str) else None


def focused_promotion(frame: Frame) -> str | None:
    value = frame.evaluate("() => document.activeElement?.dataset?.promotion ?? null")
    return value if isinstance(value, str) else None


def tab_to_board(page: Page, frame: Frame) -> None:
    """Tab from the top of the page until the focus is on a square of the board in `frame`."""
    for _ in range(30):
        press(page, "Tab")
        if focused(frame):
            return
    raise AssertionError("Tab never reached the chess board")


def walk_to(page: Page, frame: Frame, target: str) -> None:
    """Arrow keys from the focused square to `target` (white at the bottom)."""
    for _ in range(16):
        here = focused(frame)
        assert here, "the focus left the board"
        if here == target:
            return
        files, ranks = ord(target[0]) - ord(here[0]), int(target[1]) - int(here[1])
        page.keyboard.press(
            "ArrowRight" if files > 0 else "ArrowLeft" if files < 0 else "ArrowUp" if ranks > 0 else "ArrowDown"
        )
    raise AssertionError(f"the arrow keys did not reach {target} (the focus is on {focused(frame)})")


def play(page: Page, frame: Frame, view: FrameLocator, origin: str, target: str, ply_after: int) -> None:
    """One move by keyboard: walk to `origin`, Enter, walk to `target`, Space; the board reaches `ply_after`."""
    walk_to(page, frame, origin)
    page.keyboard.press("Enter")
    expect(square(view, origin)).to_have_attribute("aria-selected", "true")
    walk_to(page, frame, target)
    page.keyboard.press(" ")
    expect(chess(view)).to_have_attribute("data-ply", str(ply_after), timeout=15_000)
    assert focused(frame) == target  # the focus stays where the piece went, through every redraw
