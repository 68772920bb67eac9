"""`GET /playground` (local mode only): the host emulator page. Its script is the `playground` entry of the
widget bundles (built with the widgets, read through the manifest on every request so a rebuild shows at once).

The page says whether sign-in is on (a `widget-mcp-sign-in` meta tag), so the playground asks for the OAuth metadata
only when there is some: asking with sign-in off is a 404, which browsers log as a console error.
"""

from __future__ import annotations

import html
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse

from widget_mcp.toolkit.bundles import BundleManifest, ManifestError

ENTRY = "playground"


def playground_html(manifest: BundleManifest, widgets_path: str = "/widgets", *, sign_in: bool = False) -> str:
    files = manifest.files(ENTRY)
    css = "".join(f'<link rel="stylesheet" href="{html.escape(f"{widgets_path}/{c}")}">' for c in files.css)
    script = html.escape(f"{widgets_path}/{files.js}")
    return (
        "<!doctype html>"
        '<html lang="en"><head><meta charset="utf-8"><title>widget-mcp playground</title>'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="color-scheme" content="light dark">'
        '<link rel="icon" href="data:,">'
        f'<meta name="widget-mcp-sign-in" content="{"on" if sign_in else "off"}">'
        f"{css}</head>"
        f'<body><script type="module" src="{script}"></script></body></html>'
    )


NOT_BUILT = (
    "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>widget-mcp playground</title></head>"
    "<body><h1>The widget bundles are not built</h1>"
    "<p>Run <code>make dev</code> (it builds them) or <code>npm ci && npm run build</code> in widget_bundles/.</p>"
    "</body></html>"
)


class PlaygroundPage:
    def __init__(self, manifest_path: Path, *, sign_in: bool = False) -> None:
        self._manifest_path = manifest_path
        self._sign_in = sign_in

    async def page(self, request: Request) -> HTMLResponse:
        headers = {"cache-control": "no-cache"}
        try:
            manifest = BundleManifest.load(self._manifest_path)
        except ManifestError:
            manifest = BundleManifest()
        if ENTRY not in manifest.entries:
            return HTMLResponse(NOT_BUILT, status_code=503, headers=headers)
        return HTMLResponse(playground_html(manifest, sign_in=self._sign_in), headers=headers)
