"""`widget-mcp bundles --into DIR [DIST ...]`: the toolkit's widget bundles and a project's own, as one dist.

One dist is what everything downstream reads: the local server's `/widgets/`, the manifest the endpoint builds
templates from, the CDN's deployment. The merged manifest lists every entry once; the files are content-hashed by
Vite, so two dists never write one name with different bytes unless something is wrong, which is refused.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from widget_mcp.local.paths import TOOLKIT_BUNDLES

MANIFEST = "manifest.json"


class MergeError(ValueError):
    """The dists cannot be merged; carries the path at fault."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"cannot merge widget bundles, {path}: {problem}")
        self.path = path


def manifest_entries(dist: Path) -> dict[str, object]:
    manifest = dist / MANIFEST
    if not manifest.is_file():
        raise MergeError(dist, f"no {MANIFEST}: build the widgets first")
    try:
        entries = json.loads(manifest.read_text(encoding="utf-8"))["entries"]
    except (ValueError, KeyError, TypeError) as exc:
        raise MergeError(manifest, f"not a bundle manifest ({exc})") from None
    if not isinstance(entries, dict):
        raise MergeError(manifest, "its entries are not an object")
    return entries


def _check_target(into: Path, sources: Sequence[Path]) -> None:
    """`into` is replaced whole: refuse one that holds anything but an earlier merge, or holds one of the inputs."""
    into = into.resolve()
    if into == Path(into.anchor) or into == Path.cwd() or into == Path.home():
        raise MergeError(into, "choose a folder of its own for the merged bundles, such as build/widgets")
    if into.exists() and (not into.is_dir() or (any(into.iterdir()) and not (into / MANIFEST).is_file())):
        raise MergeError(into, f"it exists and is not a merged dist (no {MANIFEST}): it would be replaced")
    for source in sources:
        if source.resolve().is_relative_to(into) or into.is_relative_to(source.resolve()):
            raise MergeError(into, f"it overlaps {source}, one of the dists merged")


def merge(into: Path, dists: Sequence[Path]) -> dict[str, object]:
    """Write the toolkit's bundles and `dists` into `into` (replaced whole); the merged manifest's entries."""
    sources = [TOOLKIT_BUNDLES, *dists]
    _check_target(into, sources)
    merged: dict[str, object] = {}
    for dist in sources:
        for name, files in manifest_entries(dist).items():
            if name in merged:
                raise MergeError(dist, f"the entry {name!r} is also another dist's: rename the widget's entry")
            merged[name] = files
    staging = into.with_name(f".{into.name}.merging")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for dist in sources:
        for path in sorted(p for p in dist.rglob("*") if p.is_file() and p.name != MANIFEST and p.name[0] != "."):
            target = staging / path.relative_to(dist)
            if target.exists() and target.read_bytes() != path.read_bytes():
                raise MergeError(path, f"{target.relative_to(staging)} differs from another dist's file of that name")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    (staging / MANIFEST).write_text(json.dumps({"entries": merged}, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    # Swapped in whole, so a server reading the old manifest never sees half the new files.
    shutil.rmtree(into, ignore_errors=True)
    staging.rename(into)
    return merged


def run_merge(into: str, dists: Sequence[str]) -> int:
    try:
        entries = merge(Path(into), [Path(dist) for dist in dists])
    except MergeError as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"merged {len(entries)} widget entries into {into}")
    return 0
