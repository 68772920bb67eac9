"""The directories' listing limits, checked all at once: one sentence per limit broken (`make submission`)."""

from __future__ import annotations

from pathlib import Path

from widget_mcp.toolkit.listing import CATEGORIES
from widget_mcp.toolkit.tools import ToolBook, ToolSpec
from widget_mcp.toolkit.widgets import WidgetSpec

NAME, SUBTITLE, DESCRIPTION, PROMPT, PROMPTS = 30, 30, 4000, 128, 3
POSITIVE_CASES, NEGATIVE_CASES, USAGE_EXAMPLES = 5, 3, 3
TOOL_NAME = 64  # Claude's connector directory


def model_visible(book: ToolBook) -> list[ToolSpec]:
    return [spec for spec in book.tools.values() if spec.visibility != "private"]


def violations(app: str, book: ToolBook, root: Path) -> list[str]:
    found = []
    listing = book.listing
    if listing is None:
        return [f"{app} declares no listing (book.listing = Listing(...))."]
    for label, text, limit in (
        ("name", listing.name, NAME),
        ("subtitle", listing.subtitle, SUBTITLE),
        ("description", listing.description, DESCRIPTION),
    ):
        if not text.strip():
            found.append(f"{app}'s listing {label} is empty.")
        elif len(text) > limit:
            found.append(f"{app}'s listing {label} is {len(text)} characters; the limit is {limit}.")
    if listing.category not in CATEGORIES:
        found.append(f"{app}'s category {listing.category!r} is not one of OpenAI's: {', '.join(CATEGORIES)}.")
    if not listing.logo.startswith("https://") and not (root / listing.logo).is_file():
        found.append(f"{app}'s logo {listing.logo!r} is neither an https URL nor a file in the repository.")
    if not 1 <= len(listing.starter_prompts) <= PROMPTS:
        found.append(f"{app} has {len(listing.starter_prompts)} starter prompts; give 1 to {PROMPTS}.")
    for prompt in listing.starter_prompts:
        if len(prompt) > PROMPT:
            found.append(f"{app}'s starter prompt {prompt[:40]!r}… is {len(prompt)} characters; the limit is {PROMPT}.")
    if len(book.review_cases) != POSITIVE_CASES:
        found.append(f"{app} declares {len(book.review_cases)} positive cases; ChatGPT asks for {POSITIVE_CASES}.")
    if len(book.negative_cases) != NEGATIVE_CASES:
        found.append(f"{app} declares {len(book.negative_cases)} negative cases; ChatGPT asks for {NEGATIVE_CASES}.")
    for case in book.review_cases:
        unknown = [tool for tool in case.tools_triggered if tool not in book.tools]
        if unknown:
            found.append(f"{app}'s case {case.prompt[:40]!r} calls {', '.join(unknown)}, not declared.")
    for spec in model_visible(book):
        found += tool_violations(spec)
    for widget in framing_widgets(book):
        if not widget.frame_reason.strip():
            found.append(
                f"widget {widget.name} frames {', '.join(widget.frame_domains)} without a reason; give "
                "frame_reason= on its WidgetSpec (both directories ask why a widget embeds other sites)."
            )
    return found


def framing_widgets(book: ToolBook) -> list[WidgetSpec]:
    """The book's widgets that declare frame domains, each once, in declaration order."""
    widgets = {spec.widget.name: spec.widget for spec in book.tools.values() if spec.widget is not None}
    return [widget for widget in widgets.values() if widget.frame_domains]


def tool_violations(spec: ToolSpec) -> list[str]:
    found = []
    if spec.justify is None:
        found.append(f"{spec.name} gives no hint justifications (justify= on its declaration).")
    if not (spec.read_only or spec.destructive):
        found.append(f"{spec.name} is neither read-only nor destructive; Claude's directory asks for one of them.")
    if not spec.title.strip():
        found.append(f"{spec.name} has no title.")
    if len(spec.name) > TOOL_NAME:
        found.append(f"{spec.name} is longer than {TOOL_NAME} characters.")
    return found
