"""The ChatGPT / MCP Apps submission rules, applied to what an endpoint serves (wire-form dicts)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

Level = Literal["error", "warning"]

APP_MIME_TYPE = "text/html;profile=mcp-app"
LEGACY_MIME_TYPE = "text/html+skybridge"
INVOCATION_TEXT_LIMIT = 64
HINTS = ("readOnlyHint", "destructiveHint", "openWorldHint")
# MCP Apps camelCase key → ChatGPT's snake_case twin.
CSP_KEYS = {"connectDomains": "connect_domains", "resourceDomains": "resource_domains", "frameDomains": "frame_domains"}
_ORIGIN = re.compile(r"^https://[A-Za-z0-9.-]+(:\d+)?$")
_LOCAL_ORIGIN = re.compile(r"^http://(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$")
# A content hash (8+ hex or base64url characters after a dash) or a version segment in the template URI.
_VERSIONED = re.compile(r"-[0-9a-f]{8,}\.html$|-[A-Za-z0-9_]{8,}\.html$|[/-]v\d+([./-]|$)")
_ASSET_URL = re.compile(r"""(?:src|href)\s*=\s*["'](https?://[^"']+)["']""", re.IGNORECASE)


@dataclass(frozen=True)
class Finding:
    level: Level
    subject: str
    rule: str
    message: str


@dataclass(frozen=True)
class Snapshot:
    """What the endpoint served: tools/list, resources/list, and resources/read per template URI."""

    url: str
    tools: list[dict[str, Any]]
    resources: list[dict[str, Any]]
    # uri → the first content of resources/read, or a string saying why reading failed.
    reads: Mapping[str, dict[str, Any] | str] = field(default_factory=dict)

    @property
    def template_uris(self) -> list[str]:
        uris = {u for t in self.tools for u in _template_refs(t).values() if isinstance(u, str)}
        uris |= {str(r.get("uri")) for r in self.resources if r.get("mimeType") in (APP_MIME_TYPE, LEGACY_MIME_TYPE)}
        return sorted(uris)


def is_local(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    return host in ("127.0.0.1", "localhost", "::1")


def check(snapshot: Snapshot, *, for_submission: bool) -> list[Finding]:
    """Every finding for the endpoint. Submission-only rules are warnings when `for_submission` is false."""
    findings = list(_endpoint(snapshot.url))
    if not snapshot.tools:
        findings.append(Finding("error", "server", "tools", "tools/list returned no tools"))
    for tool in snapshot.tools:
        findings += _tool(tool, snapshot)
    for uri in snapshot.template_uris:
        read = snapshot.reads.get(uri, "not read")
        if isinstance(read, str):
            findings.append(Finding("error", f"template {uri}", "resolves", f"resources/read failed: {read}"))
        else:
            findings += _template(uri, read, for_submission=for_submission)
    return findings


def _endpoint(url: str) -> Iterator[Finding]:
    if urlsplit(url).scheme != "https" and not is_local(url):
        yield Finding("error", "server", "https", "ChatGPT connects only to a public HTTPS URL")


def _template_refs(tool: Mapping[str, Any]) -> dict[str, object]:
    meta = tool.get("_meta") or {}
    ui = meta.get("ui") or {}
    return {"ui.resourceUri": ui.get("resourceUri"), "openai/outputTemplate": meta.get("openai/outputTemplate")}


def _tool(tool: Mapping[str, Any], snapshot: Snapshot) -> Iterator[Finding]:
    subject = f"tool {tool.get('name', '?')}"
    annotations = tool.get("annotations") or {}
    missing = [h for h in HINTS if not isinstance(annotations.get(h), bool)]
    if missing:
        yield Finding("error", subject, "hints", f"annotations must set {', '.join(missing)} explicitly")
    if not str(tool.get("description") or "").strip():
        yield Finding("error", subject, "description", "no description: the model chooses tools by it")
    if not tool.get("outputSchema"):
        yield Finding("warning", subject, "outputSchema", "no outputSchema: hosts warn and cannot check results")
    meta = tool.get("_meta") or {}
    for key in ("openai/toolInvocation/invoking", "openai/toolInvocation/invoked"):
        text = meta.get(key)
        if text is None:
            yield Finding("warning", subject, "invocation", f"{key} is not set; ChatGPT shows a generic status")
        elif not isinstance(text, str) or not text.strip() or len(text) > INVOCATION_TEXT_LIMIT:
            size = len(text) if isinstance(text, str) else "?"
            yield Finding("error", subject, "invocation", f"{key} must be 1..{INVOCATION_TEXT_LIMIT} chars, is {size}")
    yield from _tool_template(subject, tool, snapshot)
    yield from _visibility(subject, meta)


def _tool_template(subject: str, tool: Mapping[str, Any], snapshot: Snapshot) -> Iterator[Finding]:
    refs = _template_refs(tool)
    uri, legacy = refs["ui.resourceUri"], refs["openai/outputTemplate"]
    if uri is None and legacy is None:
        return
    if uri != legacy:
        yield Finding(
            "error", subject, "template", f"ui.resourceUri {uri!r} and openai/outputTemplate {legacy!r} differ"
        )
    for value in {v for v in (uri, legacy) if v is not None}:
        if not isinstance(value, str) or not value.startswith("ui://"):
            yield Finding("error", subject, "template", f"template URI {value!r} is not a ui:// URI")
        elif not _VERSIONED.search(value):
            yield Finding(
                "warning", subject, "versioned", f"{value} carries no hash or version; hosts cache templates by URI"
            )
        elif value not in {r.get("uri") for r in snapshot.resources}:
            yield Finding("warning", subject, "template", f"{value} is not in resources/list")


def _visibility(subject: str, meta: Mapping[str, Any]) -> Iterator[Finding]:
    ui_visibility = (meta.get("ui") or {}).get("visibility")
    private = meta.get("openai/visibility") == "private"
    if private and ui_visibility != ["app"]:
        yield Finding("error", subject, "visibility", 'openai/visibility is private but ui.visibility is not ["app"]')
    if ui_visibility == ["app"] and not private:
        yield Finding("error", subject, "visibility", 'ui.visibility is ["app"] but openai/visibility is not private')
    app_callable = private or (isinstance(ui_visibility, list) and "app" in ui_visibility)
    if app_callable and meta.get("openai/widgetAccessible") is not True:
        yield Finding(
            "error", subject, "visibility", "callable from the widget but openai/widgetAccessible is not true"
        )


def _template(uri: str, content: Mapping[str, Any], *, for_submission: bool) -> Iterator[Finding]:
    subject = f"template {uri}"
    mime = content.get("mimeType")
    if mime != APP_MIME_TYPE:
        yield Finding("error", subject, "mimeType", f"MIME type is {mime!r}, expected {APP_MIME_TYPE!r}")
    html = content.get("text")
    if not isinstance(html, str) or not html.strip():
        yield Finding("error", subject, "html", "resources/read returned no HTML text")
        html = ""
    meta = content.get("_meta") or {}
    yield from _csp(subject, meta, html)
    if not str(meta.get("openai/widgetDescription") or "").strip():
        yield Finding("warning", subject, "widgetDescription", "openai/widgetDescription is not set")
    if not meta.get("openai/widgetDomain"):
        level: Level = "error" if for_submission else "warning"
        yield Finding(level, subject, "widgetDomain", "openai/widgetDomain is not set; submission requires it")
    if (meta.get("ui") or {}).get("domain"):
        yield Finding("warning", subject, "ui.domain", "ui.domain is set; hosts such as Claude reject foreign values")


def _csp(subject: str, meta: Mapping[str, Any], html: str) -> Iterator[Finding]:
    modern = (meta.get("ui") or {}).get("csp")
    legacy = meta.get("openai/widgetCSP")
    if not isinstance(modern, dict):
        yield Finding("error", subject, "csp", "_meta.ui.csp is missing (the MCP Apps spelling)")
        modern = {}
    if not isinstance(legacy, dict):
        yield Finding("error", subject, "csp", "openai/widgetCSP is missing (ChatGPT builds the widget CSP from it)")
        legacy = {}
    domains: set[str] = set()
    for camel, snake in CSP_KEYS.items():
        a, b = list(modern.get(camel) or []), list(legacy.get(snake) or [])
        domains |= {str(d) for d in (*a, *b)}
        if modern and legacy and sorted(a) != sorted(b):
            yield Finding("error", subject, "csp", f"ui.csp.{camel} {a} and openai/widgetCSP.{snake} {b} differ")
    for domain in sorted(domains):
        if "*" in domain:
            yield Finding("error", subject, "csp", f"{domain!r} is a wildcard; list exact origins")
        elif _LOCAL_ORIGIN.match(domain):
            yield Finding("warning", subject, "csp", f"{domain} is a local origin; deploy before submitting")
        elif not _ORIGIN.match(domain):
            yield Finding("error", subject, "csp", f"{domain!r} is not an exact https origin (scheme://host)")
    # Both spellings must allow what the HTML loads: hosts differ in which one they read.
    allowed = set(modern.get("resourceDomains") or []) & set(legacy.get("resource_domains") or [])
    for url in sorted(set(_ASSET_URL.findall(html))):
        parts = urlsplit(url)
        if f"{parts.scheme}://{parts.netloc}" not in allowed:
            yield Finding("error", subject, "csp", f"the HTML loads {url} but its origin is not in resourceDomains")
