"""What the app directories ask of an app besides its tools: hint justifications (one sentence per hint, declared
with each tool), the listing, and review cases. Declared next to the tools; `make submission` and `make test` read
them from the registry, so a new app's declarations are checked and run with nothing else edited."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from widget_mcp.toolkit.errors import DeclarationError

# The three hints ChatGPT asks a sentence for, as `justify=` keys.
JUSTIFIED_HINTS = ("read_only", "open_world", "destructive")
MAX_JUSTIFICATION = 300
# OpenAI's app categories (its app submission's fixed list).
CATEGORIES = (
    "BUSINESS",
    "COLLABORATION",
    "DESIGN",
    "DEVELOPER_TOOLS",
    "EDUCATION",
    "ENTERTAINMENT",
    "FINANCE",
    "FOOD",
    "LIFESTYLE",
    "NEWS",
    "PRODUCTIVITY",
    "SHOPPING",
    "TRAVEL",
)
# A value written `{{field}}` in a review call's arguments is that field of an earlier call's structuredContent in
# the same case (the gameId chess_new_game returned).
REFERENCE_OPEN, REFERENCE_CLOSE = "{{", "}}"


@dataclass(frozen=True)
class Justifications:
    """One sentence per hint a directory's review asks about (`book.tool(justify={...})`): why the tool is or is not
    read-only, open-world and destructive."""

    read_only: str
    open_world: str
    destructive: str

    @classmethod
    def of(cls, tool: str, given: Mapping[str, str]) -> Justifications:
        unknown = set(given) - set(JUSTIFIED_HINTS)
        missing = [hint for hint in JUSTIFIED_HINTS if not str(given.get(hint, "")).strip()]
        if unknown or missing:
            raise DeclarationError(
                tool, f"justify= gives one sentence for each of {', '.join(JUSTIFIED_HINTS)} (and nothing else)"
            )
        for hint in JUSTIFIED_HINTS:
            if len(given[hint]) > MAX_JUSTIFICATION:
                raise DeclarationError(tool, f"the {hint} justification is over {MAX_JUSTIFICATION} characters")
        return cls(**{hint: given[hint].strip() for hint in JUSTIFIED_HINTS})


@dataclass(frozen=True)
class Listing:
    """An app's directory listing. The directories' limits are checked by `make submission` (publishing/limits.py),
    which says every one broken at once, rather than here."""

    name: str
    subtitle: str
    description: str
    category: str
    # A path relative to the repository, or an https URL: the square logo the directories show.
    logo: str
    starter_prompts: tuple[str, ...]
    release_notes: str = ""


@dataclass(frozen=True)
class ReviewCall:
    """One tool call a case makes: `expect` is a part of its structuredContent the call must return."""

    tool: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    expect: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ReviewCase:
    """A positive case: what a reviewer types, the calls it should make (which `make test` makes), what they see."""

    description: str
    prompt: str
    calls: tuple[ReviewCall, ...]
    expected_output: str

    @property
    def tools_triggered(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(call.tool for call in self.calls))


@dataclass(frozen=True)
class NegativeCase:
    """A prompt near the app's purpose for which it must not be called."""

    description: str
    prompt: str
    expected_output: str = "The app is not called: the request is outside what it does."
