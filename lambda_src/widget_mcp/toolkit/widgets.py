"""Widget templates: declare once, served in both host dialects (MCP Apps `ui.*` and ChatGPT `openai/*`)."""

from __future__ import annotations

import hashlib
import html
import re
from dataclasses import dataclass
from typing import Any

from widget_mcp.toolkit.bundles import BundleManifest
from widget_mcp.toolkit.errors import DeclarationError

APP_MIME_TYPE = "text/html;profile=mcp-app"
_NAME = re.compile(r"^[a-z][a-z0-9-]{0,47}$")
_DOMAIN = re.compile(r"^https://[A-Za-z0-9.-]+(:\d+)?$|^http://(127\.0\.0\.1|localhost)(:\d+)?$")


@dataclass(frozen=True)
class WidgetSpec:
    """What a developer declares about a widget. Everything host-specific is derived from it."""

    name: str
    entry: str
    title: str
    description: str
    prefers_border: bool = True
    connect_domains: tuple[str, ...] = ()
    resource_domains: tuple[str, ...] = ()
    frame_domains: tuple[str, ...] = ()
    # Why the widget embeds pages of `frame_domains`: the directories' reviewers ask, and `make submission` refuses a
    # widget that frames other origins without one (publishing/limits.py).
    frame_reason: str = ""

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise DeclarationError(self.name, "widget names are lower-case words joined by '-', at most 48 characters")
        if not self.description.strip():
            raise DeclarationError(self.name, "a widget needs a description (hosts show it to the model)")
        for domain in (*self.connect_domains, *self.resource_domains, *self.frame_domains):
            if not _DOMAIN.match(domain):
                raise DeclarationError(self.name, f"CSP domain {domain!r} must be an exact https origin, no wildcards")


@dataclass(frozen=True)
class WidgetTemplate:
    """A rendered template: the versioned `ui://` URI, the HTML shell and the resource `_meta`."""

    spec: WidgetSpec
    uri: str
    html: str
    meta: dict[str, Any]

    def resource_listing(self) -> dict[str, Any]:
        return {
            "uri": self.uri,
            "name": self.spec.name,
            "title": self.spec.title,
            "description": self.spec.description,
            "mimeType": APP_MIME_TYPE,
            "_meta": self.meta,
        }


def _shell(spec: WidgetSpec, base_url: str, manifest: BundleManifest) -> str:
    files = manifest.files(spec.entry)
    css = "".join(f'<link rel="stylesheet" href="{html.escape(f"{base_url}/{c}")}">' for c in files.css)
    script = html.escape(f"{base_url}/{files.js}")
    preloads = "".join(f'<link rel="modulepreload" href="{html.escape(f"{base_url}/{i}")}">' for i in files.imports)
    return (
        "<!doctype html>"
        f'<html lang="en"><head><meta charset="utf-8"><title>{html.escape(spec.title)}</title>'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="color-scheme" content="light dark">'
        f"{css}{preloads}</head>"
        f'<body><div id="root" data-widget-entry="{html.escape(spec.entry)}"></div>'
        f'<script type="module" src="{script}"></script></body></html>'
    )


def render_template(
    spec: WidgetSpec,
    *,
    base_url: str,
    origin: str,
    manifest: BundleManifest,
    widget_domain: str | None = None,
    release: str | None = None,
) -> WidgetTemplate:
    """Build the template. The URI carries a hash of the shell, so a new bundle is a new URI (hosts cache by URI);
    with `release`, it carries `v<release>` instead: a published app's tool metadata then stays as the directory
    reviewed it while bundles change, and a host's cached shell still loads, as the CDN never deletes hashed files."""
    shell = _shell(spec, base_url, manifest)
    digest = f"v{release}" if release else hashlib.sha256(shell.encode()).hexdigest()[:12]
    connect = sorted({origin, *spec.connect_domains})
    resources = sorted({origin, *spec.resource_domains})
    frames = sorted(set(spec.frame_domains))
    ui: dict[str, Any] = {
        "csp": {"connectDomains": connect, "resourceDomains": resources, "frameDomains": frames, "baseUriDomains": []},
        "prefersBorder": spec.prefers_border,
    }
    meta: dict[str, Any] = {
        "ui": ui,
        "openai/widgetDescription": spec.description,
        "openai/widgetPrefersBorder": spec.prefers_border,
        "openai/widgetCSP": {
            "connect_domains": connect,
            "resource_domains": resources,
            "frame_domains": frames,
            "redirect_domains": [],
        },
    }
    if widget_domain:
        # ChatGPT reads openai/widgetDomain; ui.domain stays unset because other hosts reject foreign values.
        meta["openai/widgetDomain"] = widget_domain
    return WidgetTemplate(spec=spec, uri=f"ui://widget/{spec.name}-{digest}.html", html=shell, meta=meta)
