"""Which Chromium local tooling (browser tests, widget benchmarks) drives, and how it starts it.

Found in this order: the `CHROMIUM` environment variable, a browser Playwright installed for itself, then the
usual system places on Linux and macOS. Nothing here downloads a browser. Every flag that makes Chromium
phone home is off, so it also runs on machines whose network is closed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

CHROMIUM_ARGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Chromium builds its WebUI omnibox popup (~260 chrome:// module fetches in a renderer of its own) for every new
    # browser context, even headless where no omnibox is shown: work competing with every page a test or the bench
    # loads.
    "--disable-features=WebUIOmniboxPopup",
)
ENV_VAR = "CHROMIUM"
SYSTEM_PATHS = (
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/snap/bin/chromium",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
)
# Inside a Playwright browser folder (`chromium-<build>`), per platform.
_PLAYWRIGHT_BINARIES = (
    "chrome-linux/chrome",
    "chrome-linux64/chrome",
    "chrome-mac/Chromium.app/Contents/MacOS/Chromium",
    "chrome-mac-arm64/Chromium.app/Contents/MacOS/Chromium",
)
INSTALL_HINTS = (
    "Debian/Ubuntu: sudo apt-get install chromium",
    "Fedora: sudo dnf install chromium",
    "macOS: brew install --cask chromium",
    "or: .venv/bin/playwright install chromium (downloads Playwright's own build)",
    f"or point {ENV_VAR}=/path/to/chromium at any Chromium or Chrome",
)


class ChromiumNotFound(FileNotFoundError):
    """No usable Chromium; the message lists every place looked and how to install one."""

    def __init__(self, looked: Iterable[str]) -> None:
        self.looked = list(looked)
        places = "\n".join(f"  - {place}" for place in self.looked)
        hints = "\n".join(f"  {hint}" for hint in INSTALL_HINTS)
        super().__init__(f"no Chromium found. Looked at:\n{places}\nInstall one:\n{hints}")


def _playwright_cache(env: Mapping[str, str], home: Path) -> Path:
    if env.get("PLAYWRIGHT_BROWSERS_PATH"):
        return Path(env["PLAYWRIGHT_BROWSERS_PATH"])
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / "ms-playwright"
    return home / ".cache" / "ms-playwright"


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def find_chromium(env: Mapping[str, str] | None = None, home: Path | None = None) -> str:
    """The path of the Chromium to drive; raises ChromiumNotFound naming every place looked."""
    env = os.environ if env is None else env
    home = Path.home() if home is None else home
    looked: list[str] = []
    configured = env.get(ENV_VAR)
    if configured:
        if _executable(Path(configured)):
            return configured
        looked.append(f"${ENV_VAR} = {configured} (not an executable file)")
    else:
        looked.append(f"${ENV_VAR} (not set)")
    cache = _playwright_cache(env, home)
    builds = sorted(cache.glob("chromium-*"), reverse=True) if cache.is_dir() else []
    for build in builds:
        for binary in _PLAYWRIGHT_BINARIES:
            if _executable(build / binary):
                return str(build / binary)
    looked.append(f"{cache}/chromium-*/ (Playwright's own browsers)")
    for path in SYSTEM_PATHS:
        if _executable(Path(path)):
            return path
        looked.append(path)
    raise ChromiumNotFound(looked)
