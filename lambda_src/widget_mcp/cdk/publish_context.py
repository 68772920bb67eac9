"""The context a published deployment sets (docs/publish.md): the profile it serves (`-c apps=chess,forms`,
`-c release=1.2.0`), who its legal pages name (`-c publisherName=…`, `-c supportContact=…`) and the directories'
ownership proofs (`-c openaiAppsChallenge=…`, `-c mcpRegistryAuth=…`), each checked at synth."""

from __future__ import annotations

import re
from typing import Any

from widget_mcp.apps.registry import RegistryError, app_name, select_apps
from widget_mcp.cdk.context_values import EMAIL, ConfigError, items
from widget_mcp.settings import RELEASE_PATTERN, directory_token

# `-c openaiAppsChallenge=…` and `-c mcpRegistryAuth=…`: the function's variable for each.
DIRECTORY_TOKENS = {"openaiAppsChallenge": "OPENAI_APPS_CHALLENGE", "mcpRegistryAuth": "MCP_REGISTRY_AUTH"}


def served_apps(value: object, registry: tuple[str, ...]) -> tuple[str, ...] | None:
    """`apps`: the apps served, by name (`chess,forms`), as `registry`'s entries in its order; unset, None (every
    registered app)."""
    if value is None:
        return None
    names = items(value)
    if not names:
        raise ConfigError(f"apps must name at least one app, such as {app_name(registry[-1])}, got {value!r}")
    try:
        return select_apps(names, registry)
    except RegistryError as exc:
        raise ConfigError(f"apps: {exc}") from None


def release(value: object) -> str | None:
    """`release`: a version such as 1.2.0 that the template URIs carry (WIDGET_RELEASE); unset, None."""
    if value is None:
        return None
    text = str(value).strip()
    if not re.fullmatch(RELEASE_PATTERN, text):
        raise ConfigError(f"release must be a version such as 1.2.0 (dotted numbers, optional -suffix), got {value!r}")
    return text


def publisher(value: object) -> str | None:
    """`publisherName`: who the legal pages name; one printable line."""
    if value is None:
        return None
    text = str(value).strip()
    if not 1 <= len(text) <= 120 or not text.isprintable():
        raise ConfigError(f"publisherName must be one printable line of at most 120 characters, got {value!r}")
    return text


def support_contact(value: object) -> str | None:
    """`supportContact`: an email address or an https URL the legal pages send users to."""
    if value is None:
        return None
    text = str(value).strip()
    email = EMAIL.fullmatch(text)
    url = re.fullmatch(r"https://[^\s<>\"]+", text)
    if len(text) > 254 or not (email or url):
        raise ConfigError(f"supportContact must be an email address or an https URL, got {value!r}")
    return text


def directory_tokens(get: Any) -> dict[str, str]:
    """Each token the context sets, checked at synth by the function's own rule (widget_mcp.settings)."""
    chosen: dict[str, str] = {}
    for key, variable in DIRECTORY_TOKENS.items():
        value = get(key)
        if value is None:
            continue
        try:
            token = directory_token(str(value))
        except ValueError as exc:
            raise ConfigError(f"{key} {exc}, got {value!r}") from None
        if token:
            chosen[variable] = token
    return chosen
