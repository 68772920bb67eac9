"""`python -m widget_mcp.publishing [APP] --url URL --name NAME [--out DIR]` (`make submission`): checks the app's
listing limits, then writes its submission files; exit 1 with one sentence per limit broken."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from widget_mcp.apps.registry import APPS, AppContext, load_books
from widget_mcp.publishing.limits import violations
from widget_mcp.publishing.submission import chatgpt_submission, claude_listing, server_json
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore

ROOT = Path(__file__).resolve().parents[3]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m widget_mcp.publishing", description=__doc__)
    parser.add_argument(
        "app", nargs="?", default="", help="the app (its package's last name); default: the first with a listing"
    )
    parser.add_argument(
        "--url", default="https://mcp.example.com/mcp", help="the deployed MCP URL (the stack's McpUrl)"
    )
    parser.add_argument("--name", default="", help="the registry name, e.g. io.github.you/chess")
    parser.add_argument("--out", default=str(ROOT / "build" / "submission"))
    args = parser.parse_args(argv)
    books = dict(zip(APPS, load_books(AppContext(Settings(), InMemoryDocumentStore()), APPS), strict=True))
    listed = {entry.rsplit(".", 1)[-1]: book for entry, book in books.items() if book.listing is not None}
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
    (out / "chatgpt-app-submission.json").write_text(json.dumps(chatgpt_submission(book), indent=2) + "\n")
    (out / "server.json").write_text(json.dumps(server_json(book, name=name, url=args.url), indent=2) + "\n")
    (out / "claude-listing.md").write_text(claude_listing(book, url=args.url))
    print(f"{app}: wrote chatgpt-app-submission.json, server.json and claude-listing.md into {out}")
    if "example" in args.url or not args.name:
        print("placeholders used: give URL=<the stack's McpUrl> and REGISTRY_NAME=<your namespace>/<name>")
    return 0


if __name__ == "__main__":
    sys.exit(main())
