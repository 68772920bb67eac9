"""The privacy, terms and support pages, written from a data inventory the code owns: what each served app declares
it stores (`book.stored`), and what the deployment itself keeps (logs and their retention, the access log's source
addresses, rate counters per address, point-in-time backups) and who processes it (AWS). The stack deploys them
with the widget bundles (cdk/widget_cdn.py), `make dev` serves them at /legal/, and `make submission` names their
URLs. They are a starting point a publisher reviews with a lawyer (docs/publish.md), never legal advice."""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from widget_mcp.apps.my_data.names import ERASE_TOOL, EXPORT_TOOL
from widget_mcp.toolkit.inventory import days
from widget_mcp.toolkit.tools import ToolBook

PAGES = ("privacy", "terms", "support")
LEGAL_PREFIX = "legal"
# DynamoDB keeps continuous backups for a fixed window (the table's point-in-time recovery, on in the stack).
BACKUP_DAYS = 35


@dataclass(frozen=True)
class Deployment:
    """What the deployment keeps besides the apps' items, from the stack's constants (infra) or the settings."""

    publisher: str = "The publisher of this app"
    contact: str = ""
    log_retention_days: int = 30
    rate_window_seconds: int = 60
    rate_limited: bool = True
    sign_in: bool = False
    backup_days: int = BACKUP_DAYS


@dataclass(frozen=True)
class Row:
    what: str
    content: str
    purpose: str
    kept: str


def inventory(books: Iterable[ToolBook], deployment: Deployment) -> list[Row]:
    """Every kind of data the deployment keeps: the apps' declarations, then what the toolkit and AWS keep."""
    rows = [Row(d.what, d.content, d.purpose, d.kept) for book in books for d in book.stored]
    logs = days(deployment.log_retention_days)
    rows.append(
        Row(
            "Request logs",
            "for each tool call: the tool's name, whether the caller was identified (never who), how long it took "
            "and any error code; never the arguments, answers, location, locale or user agent",
            "to run the service, find faults and measure cost",
            f"{logs}, then deleted by CloudWatch Logs",
        )
    )
    rows.append(
        Row(
            "Access logs",
            "for each HTTP request: the time, the source IP address, the route, the status and the latency",
            "to defend the service against abuse and answer incidents",
            f"{logs}, then deleted by CloudWatch Logs",
        )
    )
    if deployment.rate_limited:
        window = deployment.rate_window_seconds
        rows.append(
            Row(
                "Rate counters",
                "a count of recent calls per user, or per source address for callers without identity",
                "to limit how often one caller may call, so no one can exhaust the service",
                f"{2 * window} seconds (two {window}-second windows), then deleted by the table's expiry",
            )
        )
    if deployment.sign_in:
        rows.append(
            Row(
                "Sign-in account",
                "the email address and password hash of a signed-in user (Amazon Cognito)",
                "to know whose data a call may reach",
                "until the account is deleted",
            )
        )
    rows.append(
        Row(
            "Backups",
            "point-in-time copies of the items above that live in the table",
            "to recover from an operator's mistake or a fault",
            f"{days(deployment.backup_days)}, rolling: a deleted item leaves the backups after that",
        )
    )
    return rows


def _tools(books: Iterable[ToolBook]) -> set[str]:
    return {name for book in books for name in book.tools}


def _page(title: str, deployment: Deployment, body: list[str]) -> str:
    head = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title>"
        "<style>body{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}"
        "table{border-collapse:collapse}td,th{border:1px solid #999;padding:.3rem .5rem;vertical-align:top}</style>"
        f"</head><body><h1>{html.escape(title)}</h1>"
    )
    nav = " · ".join(f'<a href="{page}.html">{page.title()}</a>' for page in PAGES)
    return head + "".join(body) + f"<hr><p>{html.escape(deployment.publisher)} · {nav}</p></body></html>\n"


def _contact(deployment: Deployment) -> str:
    if deployment.contact:
        address = html.escape(deployment.contact)
        href = address if "://" in address else f"mailto:{address}"
        return f'<a href="{href}">{address}</a>'
    return "the contact address given in the app's directory listing"


def _controls(tools: set[str], deployment: Deployment) -> list[str]:
    controls = []
    if EXPORT_TOOL in tools:
        controls.append(
            f"Ask the assistant to export your data: the <code>{EXPORT_TOOL}</code> tool returns every "
            "item the apps keep for you."
        )
    if ERASE_TOOL in tools:
        controls.append(
            f"Ask the assistant to erase your data: the <code>{ERASE_TOOL}</code> tool deletes every "
            "item the apps keep for you, at once."
        )
    controls.append("Everything the apps keep expires on its own, after the times above.")
    controls.append(f"For anything else (a copy, a correction, a deletion), write to {_contact(deployment)}.")
    return controls


def privacy_page(books: Iterable[ToolBook], deployment: Deployment) -> str:
    books = list(books)
    rows = inventory(books, deployment)
    table = ["<table><tr><th>What</th><th>Content</th><th>Why</th><th>Kept</th></tr>"]
    table += [
        "<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in (r.what, r.content, r.purpose, r.kept)) + "</tr>"
        for r in rows
    ]
    table.append("</table>")
    processors = "Amazon Web Services (API Gateway, Lambda, DynamoDB, CloudWatch Logs, S3 and CloudFront"
    processors += ", Cognito)" if deployment.sign_in else ")"
    body = [
        f"<p>{html.escape(deployment.publisher)} runs this app. This page says what it keeps about you, why, for how "
        "long, who processes it and what you can do about it.</p>",
        "<h2>What is kept</h2>",
        *table,
        "<p>Nothing else is collected: no tracking, no advertising, no profile across apps. The app never asks for "
        "sensitive data; what you type into a form is kept only as the table says.</p>",
        "<h2>Who processes it</h2>",
        f"<p>{processors} stores and serves it, as our processor, in the region the app is deployed to. "
        "The assistant you use (for example ChatGPT or Claude) receives what the tools return to it, under its own "
        "privacy policy. Nothing is sold or shared with anyone else.</p>",
        "<h2>Your choices</h2>",
        "<ul>" + "".join(f"<li>{c}</li>" for c in _controls(_tools(books), deployment)) + "</ul>",
        "<p>Erased items stay in the rolling backups until those expire (see the table); they are never restored "
        "for any other purpose.</p>",
        f"<h2>Contact</h2><p>Questions about this policy: {_contact(deployment)}.</p>",
    ]
    return _page("Privacy policy", deployment, body)


def terms_page(books: Iterable[ToolBook], deployment: Deployment) -> str:
    publisher = html.escape(deployment.publisher)
    names = ", ".join(html.escape(b.listing.name) for b in books if b.listing is not None) or "this app"
    body = [
        f"<p>These terms cover your use of {names}, run by {publisher}. By using it you accept them.</p>",
        "<h2>The service</h2><p>The app is offered as it is, free of charge, without any warranty. It may change or "
        "stop; saved items expire as the privacy policy says, so keep a copy of anything you need.</p>",
        "<h2>Your use</h2><p>Do not use it to break the law, to harm others, or to overload or attack the service. "
        "Calls are rate-limited; abusive use may be blocked.</p>",
        "<h2>Your content</h2><p>What you enter stays yours. You let us store and process it only to run the app, "
        "as the privacy policy describes.</p>",
        "<h2>Liability</h2><p>To the extent the law allows, we are not liable for indirect or consequential loss, "
        "or for loss of data.</p>",
        f"<h2>Contact</h2><p>{_contact(deployment)}.</p>",
    ]
    return _page("Terms of use", deployment, body)


def support_page(books: Iterable[ToolBook], deployment: Deployment) -> str:
    listed = [b.listing for b in books if b.listing is not None]
    apps = "".join(f"<li>{html.escape(x.name)}: {html.escape(x.subtitle)}</li>" for x in listed)
    body = [
        f"<p>Help with {'these apps' if len(listed) != 1 else 'this app'}:</p><ul>{apps}</ul>" if apps else "",
        f"<h2>Get help</h2><p>Write to {_contact(deployment)}. Say which assistant you use, what you asked, and "
        "the time it happened; the error sentence the assistant showed helps most. We answer within a week.</p>",
        '<h2>Your data</h2><p>See the <a href="privacy.html">privacy policy</a> for what is kept and how to have '
        "it erased.</p>",
        "<h2>Security</h2><p>Report a vulnerability privately to the same address; we credit reporters who want "
        "it.</p>",
    ]
    return _page("Support", deployment, body)


def legal_pages(books: Iterable[ToolBook], deployment: Deployment) -> Mapping[str, str]:
    """`<page>.html` → its HTML, for the CDN, `make dev` and the submission."""
    books = list(books)
    return {
        f"{page}.html": build(books, deployment)
        for page, build in zip(PAGES, (privacy_page, terms_page, support_page), strict=True)
    }


def legal_urls(base: str) -> dict[str, str]:
    """Each page's URL under `base` (the widget CDN's origin, or `make dev`'s)."""
    return {page: f"{base.rstrip('/')}/{LEGAL_PREFIX}/{page}.html" for page in PAGES}
