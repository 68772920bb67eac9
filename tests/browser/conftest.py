"""Browser layer: Debian's Chromium driven by Playwright against `make dev`'s server, run as a user runs it.

Nothing here skips: without Chromium or the built bundles the layer fails, saying what is missing.
A failing test leaves a screenshot of its page in build/browser-artifacts/.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

import pytest
from browser_support import ROOT, CspWatch, DevServer
from playwright.sync_api import Browser, Page, Playwright, sync_playwright
from playwright.sync_api import Error as PlaywrightError
from widget_mcp.local.chromium import CHROMIUM_ARGS, ChromiumNotFound, find_chromium
from widget_mcp.local.process import local_server

ARTIFACTS = Path(os.environ.get("BROWSER_ARTIFACTS", ROOT / "build" / "browser-artifacts"))
MANIFEST = ROOT / "widget_bundles" / "dist" / "manifest.json"
REQUIRED_ENTRIES = ("display", "chess-board", "form", "playground")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> object:
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture(scope="session")
def dev_server() -> Iterator[DevServer]:
    if not MANIFEST.is_file():
        pytest.fail(f"widget bundles are not built ({MANIFEST} is missing): run `make widgets`", pytrace=False)
    manifest = MANIFEST.read_text()
    missing = [e for e in REQUIRED_ENTRIES if f'"{e}"' not in manifest]
    if missing:
        pytest.fail(f"widget bundles lack entries {missing}: run `make widgets`", pytrace=False)
    with local_server("browser-state") as server:
        assert re.search(r"playground\s+http://127\.0\.0\.1:\d+/playground", "".join(server.output))
        yield DevServer(server.base)


class SharedChromium:
    """One Playwright driver and one Chromium for consecutive test files that use them.

    Playwright's sync API keeps an event loop running in this thread while it is open, which would stop the asyncio
    tests of other layers from starting theirs; launching Chromium for each test file costs seconds. So the browser
    lives through a run of browser tests (the whole layer in a serial run, a stretch of files on an xdist worker) and
    is closed when the run leaves a test file for one whose next test does not use it (never within a file, where
    module-scoped fixtures may hold it). Each test still gets a fresh context (`csp`)."""

    def __init__(self) -> None:
        self._driver: Playwright | None = None
        self._browser: Browser | None = None

    def driver(self) -> Playwright:
        if self._driver is None:
            self._driver = sync_playwright().start()
        return self._driver

    def browser(self) -> Browser:
        if self._browser is None:
            try:
                chromium = find_chromium()
            except ChromiumNotFound as exc:
                pytest.fail(f"the browser tests need Chromium: {exc}", pytrace=False)
            self._browser = self.driver().chromium.launch(executable_path=chromium, args=list(CHROMIUM_ARGS))
        return self._browser

    def close(self) -> None:
        browser, driver, self._browser, self._driver = self._browser, self._driver, None, None
        try:
            if browser is not None:
                browser.close()
        finally:
            if driver is not None:
                driver.stop()


CHROMIUM = SharedChromium()


@pytest.fixture(scope="module")
def playwright() -> Playwright:
    return CHROMIUM.driver()


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Browser:
    return CHROMIUM.browser()


@pytest.hookimpl(trylast=True)  # after the test's own fixtures (its contexts) are torn down
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    if nextitem is None or (nextitem.path != item.path and "playwright" not in nextitem.fixturenames):
        CHROMIUM.close()


def pytest_sessionfinish(session: pytest.Session) -> None:
    CHROMIUM.close()  # a run stopped early (-x, a keyboard interrupt) tears nothing down with a next test


@pytest.fixture
def csp(browser: Browser) -> Iterator[tuple[Page, CspWatch]]:
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    context.set_default_timeout(10_000)
    watch = CspWatch(context)
    yield context.new_page(), watch
    context.close()


@pytest.fixture
def csp_watch(csp: tuple[Page, CspWatch]) -> CspWatch:
    """The CSP violations of the test's page; `page` fails the test on any it has not cleared."""
    return csp[1]


@pytest.fixture
def page(csp: tuple[Page, CspWatch], request: pytest.FixtureRequest) -> Iterator[Page]:
    """A page in a fresh context. After the test it must have had no uncaught error and no CSP violation in any
    of its frames (every widget runs under its template's CSP, as strict hosts report every violation)."""
    page, watch = csp
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.nodeid)
        (ARTIFACTS / f"{name}.errors.txt").write_text("\n".join(errors))
        # The test failed already, perhaps on a frozen page: its screenshot is bounded, and asking its frames
        # for violations (an evaluate, which has no timeout) is not attempted.
        with suppress(PlaywrightError):
            page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True, timeout=10_000)
        return
    violations = watch.violations(page)
    assert not errors, f"uncaught errors in the page: {errors}"
    assert not violations, f"Content-Security-Policy violations: {violations}"
