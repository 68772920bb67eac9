"""Per-directory rules (`make check-app HOST=chatgpt|claude|registry`), on top of the MCP Apps rules (rules.py):
Claude's hint rule and name length, lints for steering, sensitive inputs and internal timestamps, and live checks
that the directory's ownership proof and the OAuth metadata answer from the endpoint's host."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx

from widget_mcp.publishing.challenges import OPENAI_CHALLENGE_PATH, REGISTRY_AUTH_PATH
from widget_mcp.readiness.rules import Finding, Snapshot

Host = Literal["chatgpt", "claude", "registry"]
HOSTS: tuple[Host, ...] = ("chatgpt", "claude", "registry")
# The directory's ownership proof: the path the endpoint serves it at, and the setting that turns it on.
CHALLENGE = {
    "chatgpt": (OPENAI_CHALLENGE_PATH, "OPENAI_APPS_CHALLENGE"),
    "registry": (REGISTRY_AUTH_PATH, "MCP_REGISTRY_AUTH"),
}
STEERING = re.compile(
    r"\b(use (it|this( tool)?) whenever|always (use|call)|prefer calling|you must (use|call))\b", re.IGNORECASE
)
SENSITIVE = re.compile(
    r"(password|passcode|ssn|social.?security|credit.?card|card.?number|cvv|iban|passport|mfa)", re.IGNORECASE
)
TIMESTAMP = re.compile(r"^(updated|created|modified)(_?at|_?on)$", re.I)


def profile(snapshot: Snapshot, host: Host) -> list[Finding]:
    findings: list[Finding] = []
    for tool in snapshot.tools:
        findings += _lints(tool)
        if host == "claude":
            findings += _claude(tool)
    return findings


def _lints(tool: Mapping[str, Any]) -> Iterator[Finding]:
    subject = f"tool {tool.get('name', '?')}"
    if STEERING.search(str(tool.get("description") or "")):
        yield Finding("error", subject, "steering", "the description tells the model when to call it; describe it")
    for name, prop in ((tool.get("inputSchema") or {}).get("properties") or {}).items():
        if SENSITIVE.search(name) or SENSITIVE.search(str(prop.get("title") or "")):
            yield Finding("error", subject, "sensitive", f"argument {name!r} asks for sensitive data")
    for name in _output_fields(tool.get("outputSchema") or {}):
        if TIMESTAMP.match(name):
            yield Finding("warning", subject, "minimal", f"the result carries {name!r}, an internal timestamp")


def _output_fields(schema: Mapping[str, Any]) -> Iterator[str]:
    stack = [schema]
    while stack:
        node = stack.pop()
        for name, prop in (node.get("properties") or {}).items():
            yield name
            if isinstance(prop, dict):
                stack.append(prop)
                if isinstance(prop.get("items"), dict):
                    stack.append(prop["items"])
        stack += [b for key in ("anyOf", "oneOf") for b in node.get(key) or [] if isinstance(b, dict)]


def _claude(tool: Mapping[str, Any]) -> Iterator[Finding]:
    subject = f"tool {tool.get('name', '?')}"
    annotations = tool.get("annotations") or {}
    if annotations.get("readOnlyHint") is not True and annotations.get("destructiveHint") is not True:
        yield Finding("error", subject, "claude-hints", "Claude's directory asks readOnlyHint or destructiveHint true")
    if not str(tool.get("title") or annotations.get("title") or "").strip():
        yield Finding("error", subject, "title", "no title; Claude's directory shows one per tool")
    if len(str(tool.get("name") or "")) > 64:
        yield Finding("error", subject, "name", "names longer than 64 characters are refused by Claude")


def live(url: str, snapshot: Snapshot, host: Host, *, timeout: float = 10.0) -> list[Finding]:
    """GETs the ownership proof (chatgpt, registry) and, where a tool needs sign-in, the protected-resource metadata."""
    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    findings = []
    with httpx.Client(timeout=timeout, follow_redirects=False) as client:
        if host in CHALLENGE:
            path, what = CHALLENGE[host]
            answer = client.get(origin + path)
            if answer.status_code != 200 or not answer.headers.get("content-type", "").startswith("text/plain"):
                findings.append(
                    Finding("error", "server", "challenge", f"{path} answered {answer.status_code}: set {what}")
                )
        signed = any(s.get("type") == "oauth2" for t in snapshot.tools for s in t.get("securitySchemes") or [])
        if signed and client.get(origin + "/.well-known/oauth-protected-resource/mcp").status_code != 200:
            findings.append(Finding("error", "server", "oauth", "no protected-resource metadata for a signed-in tool"))
    return findings
