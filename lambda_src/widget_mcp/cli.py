"""`widget-mcp`, the installed toolkit's command: generate a project, serve it locally, merge widget bundles."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="widget-mcp", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    new = commands.add_parser("new", help="generate a standalone project with one app, its tests and a CDK app")
    new.add_argument("name", help="the app's package name: lower case letters, digits and underscores")
    new.add_argument("--widget", action="store_true", help="give the app a widget of its own (a Vite project)")
    new.add_argument("--into", metavar="DIR", help="where to write the project (default: ./NAME)")
    commands.add_parser("dev", help="serve the project locally (MCP at /mcp, the playground at /playground)")
    bundles = commands.add_parser("bundles", help="merge the toolkit's widget bundles with a project's own")
    bundles.add_argument("--into", metavar="DIR", required=True, help="the merged bundles' directory")
    bundles.add_argument(
        "dists", nargs="*", metavar="DIST", help="a project's built bundles (a dist/ with manifest.json)"
    )
    commands.add_parser("openwebui", help="print the Open WebUI integration, the file to paste into Open WebUI")
    args = parser.parse_args(argv)
    if args.command == "new":
        from widget_mcp.project.generate import run_new

        return run_new(args.name, widget=args.widget, into=args.into)
    if args.command == "bundles":
        from widget_mcp.project.bundle_merge import run_merge

        return run_merge(args.into, args.dists)
    if args.command == "openwebui":
        from widget_mcp.project.integrations import print_openwebui

        return print_openwebui()
    try:
        from widget_mcp.local.__main__ import main as serve
    except ModuleNotFoundError as exc:
        print(
            f"widget-mcp dev needs the local extra ({exc.name} is missing): install widget-mcp[local]",
            file=sys.stderr,
        )
        return 2
    return serve()


if __name__ == "__main__":
    sys.exit(main())
