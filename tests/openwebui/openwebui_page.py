"""Open WebUI's own web page in Chromium, signed in as a test account: a stored chat opened as a person opens it,
and the widget inside the chat's first embed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

from openwebui_client import OpenWebUIClient
from playwright.sync_api import Browser, FrameLocator, Page, expect

EMBED = "iframe[title='Embedded Content']"
# Open WebUI's page is large and these machines are shared: every wait is bounded, none is tight.
TIMEOUT_MS = 30_000
expect.set_options(timeout=TIMEOUT_MS)


@contextmanager
def signed_in_page(browser: Browser, client: OpenWebUIClient) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1100, "height": 1000})
    context.set_default_timeout(TIMEOUT_MS)
    # Signed in as the web page is: Open WebUI keeps its token in localStorage.
    context.add_init_script(f"localStorage.setItem('token', {json.dumps(client.account.token)})")
    try:
        yield context.new_page()
    finally:
        context.close()


def open_chat(page: Page, client: OpenWebUIClient, chat_id: str) -> FrameLocator:
    """The chat's page, once its first embed shows; returns the widget's frame inside that embed."""
    page.goto(f"{client.base}/c/{chat_id}")
    notes = page.get_by_role("button", name="Okay, Let's Go!")  # the release notes shown on a first visit
    expect(page.locator(EMBED).first.or_(notes).first).to_be_visible()
    if notes.is_visible():
        notes.click()
    return page.frame_locator(EMBED).first.frame_locator("#widget")
