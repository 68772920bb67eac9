"""`python -m widget_mcp.readiness URL [--local|--submission] [--host chatgpt|claude|registry]`: exit 1 on errors,
2 if the endpoint is unreachable."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence

import httpx

from widget_mcp.readiness.failures import explain
from widget_mcp.readiness.probe import collect
from widget_mcp.readiness.profiles import HOSTS, live, profile
from widget_mcp.readiness.rules import Finding, check, is_local


def render(findings: Sequence[Finding]) -> str:
    """A plain-text table, errors first."""
    rows = sorted(findings, key=lambda f: (f.level != "error", f.subject, f.rule))
    header = ("level", "subject", "rule", "finding")
    table = [header, *((f.level, f.subject, f.rule, f.message) for f in rows)]
    widths = [max(len(r[i]) for r in table) for i in range(3)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row[:3], widths, strict=True)) + "  " + row[3] for row in table]
    errors = sum(f.level == "error" for f in findings)
    lines.append(f"{errors} error(s), {len(findings) - errors} warning(s)")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m widget_mcp.readiness", description=__doc__)
    parser.add_argument("url", help="the MCP endpoint, e.g. https://abc.execute-api.eu-west-1.amazonaws.com/mcp")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--submission", action="store_true", help="submission-only rules are errors (default remote)")
    mode.add_argument("--local", action="store_true", help="submission-only rules are warnings (default loopback)")
    parser.add_argument("--host", choices=HOSTS, help="also check that directory's rules (readiness/profiles.py)")
    args = parser.parse_args(argv)
    for_submission = args.submission or not (args.local or is_local(args.url))
    try:
        snapshot = asyncio.run(collect(args.url))
    except Exception as exc:  # noqa: BLE001 - any failure to connect is reported as one sentence
        print(explain(args.url, exc), file=sys.stderr)
        return 2
    findings = check(snapshot, for_submission=for_submission)
    if args.host:
        findings += profile(snapshot, args.host)
        try:
            findings += live(args.url, snapshot, args.host)
        except httpx.HTTPError as exc:
            print(explain(args.url, exc), file=sys.stderr)
            return 2
    print(f"{args.url}: {len(snapshot.tools)} tool(s), {len(snapshot.template_uris)} template(s)")
    print(render(findings))
    return 1 if any(f.level == "error" for f in findings) else 0


if __name__ == "__main__":
    sys.exit(main())
