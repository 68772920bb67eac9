"""How local tooling (browser tests, widget benchmarks) starts Debian's Chromium: never a downloaded browser.

On these machines the network is closed, so every flag that makes Chromium phone home is turned off.
"""

from __future__ import annotations

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
