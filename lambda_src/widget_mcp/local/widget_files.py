"""Serves the built widget bundles (widget_bundles/dist) under /widgets, as a CDN would.

Content-hashed files under `assets/` never change, so they are cached for a year as immutable; anything else
(the manifest) must be revalidated. Widget frames are sandboxed with an opaque origin and load their bundles
as module scripts, which are CORS requests: the files are public, so any origin may read them.
"""

from __future__ import annotations

import os

from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
CONTENT_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".svg": "image/svg+xml",
    ".woff2": "font/woff2",
}


class WidgetFiles(StaticFiles):
    def file_response(
        self, full_path: str | os.PathLike[str], stat_result: os.stat_result, scope: Scope, status_code: int = 200
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        path = str(full_path)
        content_type = CONTENT_TYPES.get(os.path.splitext(path)[1])
        if content_type:
            response.headers["content-type"] = content_type
        hashed = f"{os.sep}assets{os.sep}" in path
        response.headers["cache-control"] = IMMUTABLE if hashed else REVALIDATE
        response.headers["access-control-allow-origin"] = "*"
        response.headers["x-content-type-options"] = "nosniff"
        return response
