"""What an app stores about its users, declared with its tools (`book.stored.append(StoredData(...))`): the
privacy page (publishing/legal.py) is written from these declarations and the deployment's own constants, so a
new app's data appears in the policy with nothing else edited, and a changed TTL setting changes the page."""

from __future__ import annotations

from dataclasses import dataclass

from widget_mcp.toolkit.errors import DeclarationError


@dataclass(frozen=True)
class StoredData:
    """One kind of item the app keeps: what it is, what it holds, why, and how long it is kept (from the settings
    that decide it, so the page says what the deployment does)."""

    what: str
    content: str
    purpose: str
    kept: str

    def __post_init__(self) -> None:
        for label in ("what", "content", "purpose", "kept"):
            if not str(getattr(self, label)).strip():
                raise DeclarationError(self.what or "StoredData", f"a stored item needs its {label}")


def days(count: int) -> str:
    """A number of days as the legal pages write it: "1 day", "30 days"."""
    return f"{count} day{'s' if count != 1 else ''}"
