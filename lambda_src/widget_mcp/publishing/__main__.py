"""`python -m widget_mcp.publishing [APP] --url URL --name NAME --pages ORIGIN [--out DIR]` (`make submission`): checks
the app's listing limits, then writes its submission files and renders its screenshots from the playground; exit 1
with one sentence per limit broken (or per screenshot of the wrong size)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from widget_mcp.apps.books import AppContext, load_books
from widget_mcp.apps.registry import APPS, app_name
from widget_mcp.local.paths import PROJECT
from widget_mcp.publishing import screenshots
from widget_mcp.publishing.legal import legal_urls
from widget_mcp.publishing.limits import framing_widgets, violations
from widget_mcp.publishing.submission import chatgpt_submission, claude_listing, registry_problems, server_json
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore

# The project whose app is published: this checkout, or the working directory of a project on the installed toolkit.
ROOT = PROJECT
PLACEHOLDER_PAGES = "https://widgets.example.com"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m widget_mcp.publishing", description=__doc__)
    parser.add_argument(
        "app", nargs="?", default="", help="the app (its package's last name); default: the first with a listing"
    )
    parser.add_argument(
        "--url", default="https://mcp.example.com/mcp", help="the deployed MCP URL (the stack's McpUrl)"
    )
    parser.add_argument("--name", default="", help="the registry name, e.g. io.github.you/chess")
    parser.add_argument(
        "--pages",
        default=PLACEHOLDER_PAGES,
        help="the origin serving the legal pages (the stack's PrivacyUrl without /legal/privacy.html)",
    )
    parser.add_argument("--out", default=str(ROOT / "build" / "submission"))
    parser.add_argument(
        "--no-screenshots", action="store_true", help="skip rendering screenshots (they need Chromium and the bundles)"
    )
    args = parser.parse_args(argv)
    books = dict(zip(APPS, load_books(AppContext(Settings(), InMemoryDocumentStore()), APPS), strict=True))
    listed = {app_name(entry): book for entry, book in books.items() if book.listing is not None}
    app = args.app or next(iter(listed), "")
    book = listed.get(app)
    if book is None:
        print(f"no app {app!r} declares a listing; apps that do: {', '.join(listed) or 'none'}", file=sys.stderr)
        return 2
    problems = violations(app, book, ROOT)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    name = args.name or f"io.github.example/{app}"
    pages = legal_urls(args.pages)
    entry = server_json(book, name=name, url=args.url, website=pages["support"])
    refused = registry_problems(entry)
    if refused:
        print("\n".join(refused), file=sys.stderr)
        return 1
    (out / "chatgpt-app-submission.json").write_text(json.dumps(chatgpt_submission(book), indent=2) + "\n")
    (out / "server.json").write_text(json.dumps(entry, indent=2) + "\n")
    shots: list[str] = []
    if not args.no_screenshots:
        try:
            paths = screenshots.render(app, book, out / "screenshots")
        except screenshots.ScreenshotError as exc:
            print(str(exc), file=sys.stderr)
            return 1
        wrong = screenshots.check(paths)
        if wrong:
            print("\n".join(wrong), file=sys.stderr)
            return 1
        shots = [path.name for path in paths]
        print(f"{app}: rendered {len(shots)} screenshots into {out / 'screenshots'}: {', '.join(shots)}")
    (out / "claude-listing.md").write_text(claude_listing(book, url=args.url, pages=pages, screenshots=shots))
    print(f"{app}: wrote chatgpt-app-submission.json, server.json and claude-listing.md into {out}")
    print("for the forms: " + ", ".join(f"{page} {url}" for page, url in pages.items()))
    for widget in framing_widgets(book):  # the forms ask why; claude-listing.md carries the same table
        print(f"widget {widget.name} frames {', '.join(widget.frame_domains)}: {widget.frame_reason}")
    if "example" in args.url or not args.name or args.pages == PLACEHOLDER_PAGES:
        print(
            "placeholders used: give URL=<the stack's McpUrl>, REGISTRY_NAME=<your namespace>/<name> and "
            "PAGES=<the stack's PrivacyUrl origin>"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
