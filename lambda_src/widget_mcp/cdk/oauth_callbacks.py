"""The hosts' OAuth callbacks as named presets (`-c oauthCallbacks=chatgpt,claude`), so a deployer lists a host by
name instead of copying URLs that the hosts change from time to time.

Cognito matches callbacks exactly (no wildcards), so ChatGPT's current per-app callback needs the id ChatGPT shows
when the app is created: `chatgpt:<callback id>` adds `https://chatgpt.com/connector/oauth/<callback id>`.

Checked 2026-11-28 against: Claude's help centre ("Building custom connectors via remote MCP servers": the callback
is claude.ai's, and claude.com's is to be listed too as its future one); ChatGPT's callbacks as ChatGPT's
connectors send them (the per-app `connector/oauth/<id>` and the legacy `connector_platform_oauth_redirect`,
which existing connectors still use) and its client id metadata document at `https://chatgpt.com/oauth/<id>/…`.
"""

from __future__ import annotations

import re

PRESETS_CHECKED = "2026-11-28"
CHATGPT_LEGACY = "https://chatgpt.com/connector_platform_oauth_redirect"
CHATGPT_PER_APP = "https://chatgpt.com/connector/oauth/{callback_id}"
CLAUDE = ("https://claude.ai/api/mcp/auth_callback", "https://claude.com/api/mcp/auth_callback")
PRESETS: dict[str, tuple[str, ...]] = {"chatgpt": (CHATGPT_LEGACY,), "claude": CLAUDE}
# Without `oauthCallbacks`, ChatGPT's legacy callback, as every deployment before the presets had.
DEFAULT_PRESETS = ("chatgpt",)
_CALLBACK_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class PresetError(ValueError):
    """A preset name or callback id is not one this module knows; the message says which are."""


def callbacks_of(presets: tuple[str, ...]) -> tuple[str, ...]:
    """The URLs the presets name, in order, each once. `chatgpt:<id>` is ChatGPT's preset plus its per-app URL."""
    urls: list[str] = []
    for preset in presets:
        name, _, callback_id = preset.partition(":")
        if name not in PRESETS:
            raise PresetError(f"unknown OAuth callback preset {name!r}; known: {', '.join(PRESETS)}")
        if callback_id and name != "chatgpt":
            raise PresetError(f"only chatgpt takes a callback id (chatgpt:<id>), got {preset!r}")
        if ":" in preset and not _CALLBACK_ID.match(callback_id):
            raise PresetError(f"a ChatGPT callback id is 1-64 letters, digits, '-' or '_', got {callback_id[:80]!r}")
        found = [*PRESETS[name], *([CHATGPT_PER_APP.format(callback_id=callback_id)] if callback_id else [])]
        urls += [url for url in found if url not in urls]
    return tuple(urls)
