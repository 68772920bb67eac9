"""`widget-mcp bundles`: the toolkit's widget bundles and a project's own, merged into one dist."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from widget_mcp.local.paths import TOOLKIT_BUNDLES
from widget_mcp.project.bundle_merge import MergeError, merge


def dist(root: Path, entries: dict[str, str]) -> Path:
    """A built dist: each entry's JS file under assets/, and the manifest naming them."""
    (root / "assets").mkdir(parents=True)
    for name, js in entries.items():
        (root / js).write_text(f"// {name}")
    manifest = {"entries": {name: {"js": js, "css": [], "imports": []} for name, js in entries.items()}}
    (root / "manifest.json").write_text(json.dumps(manifest))
    return root


def test_the_merged_dist_lists_the_toolkits_entries_and_the_projects_with_their_files(tmp_path: Path) -> None:
    own = dist(tmp_path / "own", {"weather": "assets/weather-abc.js"})
    into = tmp_path / "merged"
    entries = merge(into, [own])
    toolkit = json.loads((TOOLKIT_BUNDLES / "manifest.json").read_text())["entries"]
    assert set(entries) == {*toolkit, "weather"}
    assert json.loads((into / "manifest.json").read_text())["entries"] == entries
    assert (into / "assets" / "weather-abc.js").read_text() == "// weather"
    assert all((into / files["js"]).is_file() for files in toolkit.values())


def test_an_entry_named_like_the_toolkits_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    taken = next(iter(json.loads((TOOLKIT_BUNDLES / "manifest.json").read_text())["entries"]))
    own = dist(tmp_path / "own", {taken: "assets/mine.js"})
    with pytest.raises(MergeError, match=repr(taken)):
        merge(tmp_path / "merged", [own])
    assert [path.name for path in tmp_path.iterdir()] == ["own"]


def test_two_files_of_one_name_with_different_bytes_are_refused(tmp_path: Path) -> None:
    first = dist(tmp_path / "a", {"one": "assets/same.js"})
    second = dist(tmp_path / "b", {"two": "assets/same.js"})
    with pytest.raises(MergeError, match="differs"):
        merge(tmp_path / "merged", [first, second])


def test_a_dist_without_a_manifest_says_to_build_the_widgets(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(MergeError, match="build the widgets"):
        merge(tmp_path / "merged", [tmp_path / "empty"])


def test_a_folder_that_holds_anything_but_a_merge_is_refused_and_kept(tmp_path: Path) -> None:
    own = dist(tmp_path / "own", {"weather": "assets/weather-abc.js"})
    (tmp_path / "important").mkdir()
    (tmp_path / "important" / "notes.txt").write_text("mine")
    with pytest.raises(MergeError, match="not a merged dist"):
        merge(tmp_path / "important", [own])
    assert (tmp_path / "important" / "notes.txt").read_text() == "mine"


def test_an_earlier_merge_is_replaced_whole(tmp_path: Path) -> None:
    merge(tmp_path / "merged", [dist(tmp_path / "one", {"one": "assets/one-1.js"})])
    entries = merge(tmp_path / "merged", [dist(tmp_path / "two", {"two": "assets/two-2.js"})])
    assert "one" not in entries
    assert not (tmp_path / "merged" / "assets" / "one-1.js").exists()


@pytest.mark.parametrize(
    ("where", "says"),
    [("inside", "overlaps"), ("same", "overlaps"), ("around", "overlaps"), ("cwd", "a folder of its own")],
)
def test_a_target_overlapping_an_input_or_the_working_folder_is_refused(
    where: str, says: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    own = dist(tmp_path / "widgets" / "dist", {"weather": "assets/weather-abc.js"})
    # The folder around the input looks like an earlier merge, so only the overlap stops it being replaced.
    (tmp_path / "widgets" / "manifest.json").write_text('{"entries": {}}')
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    into = {"inside": own / "merged", "same": own, "around": tmp_path / "widgets", "cwd": Path(".")}[where]
    with pytest.raises(MergeError, match=says):
        merge(into, [own])
    assert (own / "manifest.json").is_file()
    assert (own / "assets" / "weather-abc.js").read_text() == "// weather"
