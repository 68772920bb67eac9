"""How a context value (`cdk deploy -c key=value`, or cdk.context.json) is read: the parsers every part of the
stack's configuration shares, each refusing a bad value with one sentence that names its key."""

from __future__ import annotations

import re


class ConfigError(ValueError):
    """A context value is missing, malformed or inconsistent; the message names the key."""


# One address: what SNS mails and what a legal page links to (no list separators, no markup).
EMAIL = re.compile(r"[^@\s,;<>\"]+@[^@\s,;<>\"]+\.[A-Za-z]{2,}")


def items(value: object) -> list[str]:
    """A list in cdk.context.json, or comma-separated on the command line; each stripped, empty ones dropped."""
    listed = value if isinstance(value, list) else str(value).split(",")
    return [text for text in (str(item).strip() for item in listed) if text]


def flag(value: object, *, default: bool, key: str) -> bool:
    """`true` or `false` (a JSON boolean in cdk.context.json too); unset is `default`."""
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if str(value).lower() in ("true", "false"):
        return str(value).lower() == "true"
    raise ConfigError(f"{key} must be true or false, got {value!r}")


def switch(value: object, *, default: bool, key: str) -> bool:
    """`on` or `off` (a JSON true or false in cdk.context.json too); unset is `default`."""
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if str(value).lower() in ("on", "off"):
        return str(value).lower() == "on"
    raise ConfigError(f"{key} must be on or off, got {value!r}")


def choice(value: object, choices: tuple[str, ...], *, key: str) -> str | None:
    """One of `choices`, or None when unset."""
    if value is None:
        return None
    if value not in choices:
        raise ConfigError(f"{key} must be one of {', '.join(choices)}, got {value!r}")
    return str(value)


def count(value: object, *, key: str) -> int | None:
    """A whole number of at least 1, or None when unset."""
    if value is None:
        return None
    text = str(value)
    if isinstance(value, bool) or not text.isdigit() or int(text) < 1:
        raise ConfigError(f"{key} must be a whole number of at least 1, got {value!r}")
    return int(text)


def urls(value: object, *, key: str) -> tuple[str, ...]:
    """https URLs (http only on localhost), comma-separated or a list."""
    if value is None:
        return ()
    found = tuple(items(value))
    for url in found:
        if not (url.startswith("https://") or url.startswith(("http://localhost", "http://127.0.0.1"))):
            raise ConfigError(f"{key} must list https URLs (http only for localhost), got {url!r}")
    return found
