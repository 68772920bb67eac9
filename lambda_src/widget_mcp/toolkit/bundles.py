"""The widget bundle manifest: which hashed JS/CSS files make up each widget entry.

`widget_bundles` writes `dist/manifest.json` as `{"entries": {"<entry>": {"js": …, "css": […], "imports": […]}}}`
with paths relative to WIDGET_BASE_URL. Without a manifest (bundles not built yet) an entry falls back to
`<entry>.js`, so templates still resolve and the URI hash still changes when the shell does.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path


class ManifestError(ValueError):
    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"widget manifest {path}: {problem}")
        self.path = path


@dataclass(frozen=True, slots=True)
class BundleFiles:
    js: str
    css: tuple[str, ...] = ()
    # The chunks the entry imports, preloaded beside it: otherwise the browser finds them only once the entry ran.
    imports: tuple[str, ...] = ()


@dataclass(frozen=True)
class BundleManifest:
    entries: Mapping[str, BundleFiles] = field(default_factory=dict)

    def files(self, entry: str) -> BundleFiles:
        return self.entries.get(entry) or BundleFiles(js=f"{entry}.js")

    def unbuilt(self, entries: Iterable[str]) -> list[str]:
        """The entries a built manifest does not list (none when no manifest was read: nothing is built yet)."""
        return sorted({entry for entry in entries if self.entries and entry not in self.entries})

    @classmethod
    def load(cls, path: Path | None) -> BundleManifest:
        if path is None or not path.is_file():
            return cls()
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            entries = {
                str(name): BundleFiles(
                    js=str(spec["js"]),
                    css=tuple(str(c) for c in spec.get("css", ())),
                    imports=tuple(str(i) for i in spec.get("imports", ())),
                )
                for name, spec in raw["entries"].items()
            }
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ManifestError(path, f"not a bundle manifest ({exc})") from None
        return cls(entries)
