"""What `make dev` restarts the app for: any Python file under lambda_src added, changed or removed, and a widget
manifest with new content (not the same content rewritten, nor a manifest still being written); and when the
widgets are rebuilt beside it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from widget_mcp.local.reload import PRELOAD, Watch
from widget_mcp.local.widget_watch import start_widget_watch


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "lambda_src" / "app").mkdir(parents=True)
    (tmp_path / "lambda_src" / "app" / "tools.py").write_text("X = 1\n")
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "manifest.json").write_text('{"entries": {}}')
    return tmp_path


def watch(tree: Path) -> Watch:
    return Watch([tree / "lambda_src"], tree / "dist" / "manifest.json")


def later(path: Path) -> None:
    """A write a second after the last one (whatever the file system's timestamp resolution)."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def test_nothing_changed_is_no_change(tree: Path) -> None:
    assert watch(tree).changes() == []


def test_a_changed_python_file_is_a_change_once(tree: Path) -> None:
    seen = watch(tree)
    tools = tree / "lambda_src" / "app" / "tools.py"
    tools.write_text("X = 2\n")
    later(tools)
    assert seen.changes() == [tools.resolve()]
    assert seen.changes() == []


def test_an_added_or_removed_python_file_is_a_change(tree: Path) -> None:
    seen = watch(tree)
    added = tree / "lambda_src" / "app" / "more.py"
    added.write_text("")
    assert seen.changes() == [added.resolve()]
    added.unlink()
    assert seen.changes() == [added.resolve()]


def test_other_files_are_not_watched(tree: Path) -> None:
    seen = watch(tree)
    (tree / "lambda_src" / "app" / "notes.txt").write_text("x")
    (tree / "lambda_src" / "app" / ".tools.py.swp").write_text("x")
    assert seen.changes() == []


def test_the_manifest_is_a_change_when_its_content_is_new_and_complete(tree: Path) -> None:
    seen = watch(tree)
    manifest = tree / "dist" / "manifest.json"
    manifest.write_text('{"entries": {}}')  # Vite's first build in watch mode writes the same manifest again
    later(manifest)
    assert seen.changes() == []
    manifest.write_text('{"entries": {"display": {"js": "assets/disp')  # half written
    assert seen.changes() == []
    manifest.write_text('{"entries": {"display": {"js": "assets/display-B.js"}}}')
    assert seen.changes() == [manifest.resolve()]


def test_a_manifest_that_appears_is_a_change(tmp_path: Path) -> None:
    (tmp_path / "lambda_src").mkdir()
    seen = Watch([tmp_path / "lambda_src"], tmp_path / "dist" / "manifest.json")
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "manifest.json").write_text('{"entries": {}}')
    assert seen.changes() == [(tmp_path / "dist" / "manifest.json").resolve()]


def test_the_fork_server_preloads_no_module_of_this_project() -> None:
    # A module of ours imported there would be its first version forever: its changes would never show.
    assert not [name for name in PRELOAD if name.split(".")[0] == "widget_mcp"]


def test_the_widgets_are_not_watched_when_the_server_reads_another_manifest(tmp_path: Path) -> None:
    watching = start_widget_watch(tmp_path / "manifest.json", widgets=tmp_path / "widget_bundles")
    assert watching.proc is None
    assert watching.note == "widgets not watched (WIDGET_MANIFEST names another build)"


def test_the_widgets_are_not_watched_without_their_node_modules(tmp_path: Path) -> None:
    widgets = tmp_path / "widget_bundles"
    watching = start_widget_watch(widgets / "dist" / "manifest.json", widgets=widgets)
    assert watching.proc is None
    assert watching.note == "widgets not watched (no widget_bundles/node_modules: run `make widgets`)"
