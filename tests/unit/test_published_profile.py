"""The published profile in the function: APPS names the apps served (registry names, registry order; unknown names
stop start-up in one sentence), and WIDGET_RELEASE pins template URIs, so a bundle change leaves `tools/list` as the
directories reviewed it, while without it the URI follows the template's content."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from widget_mcp.apps.registry import APPS, RegistryError, app_name, select_apps
from widget_mcp.server import build_runtime
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.wiring import build_books

CHOSEN = tuple(app_name(entry) for entry in APPS[1:])


def _tool_list(tmp_path: Path, js_suffix: str, **settings: Any) -> list[dict[str, Any]]:
    every = build_books(Settings(), InMemoryDocumentStore())
    entries = {spec.widget.entry for book in every for spec in book.tools.values() if spec.widget is not None}
    manifest = tmp_path / f"manifest-{js_suffix}.json"
    manifest.write_text(json.dumps({"entries": {e: {"js": f"assets/{e}-{js_suffix}.js"} for e in entries}}))
    chosen = Settings(widget_manifest=str(manifest), **settings)
    return build_runtime(chosen, build_books(chosen, InMemoryDocumentStore())).tool_list


def _uris(tools: list[dict[str, Any]]) -> set[str]:
    return {t["_meta"]["openai/outputTemplate"] for t in tools if "openai/outputTemplate" in t["_meta"]}


def test_apps_serves_only_the_named_apps_tools_in_registry_order() -> None:
    store = InMemoryDocumentStore()
    served = [name for book in build_books(Settings(apps=tuple(reversed(CHOSEN))), store) for name in book.tools]
    every = {entry: list(book.tools) for entry, book in zip(APPS, build_books(Settings(), store), strict=True)}
    assert served == [name for entry in APPS[1:] for name in every[entry]]
    assert not set(served) & set(every[APPS[0]])


def test_without_apps_every_registered_app_is_served() -> None:
    assert select_apps(()) == APPS
    assert select_apps(("", " ")) == APPS


def test_an_unknown_app_stops_start_up_naming_it_and_the_registered_apps() -> None:
    with pytest.raises(ValueError, match=r"APPS: app 'nosuchapp': not a registered app; the apps are "):
        Settings(apps=(CHOSEN[0], "nosuchapp"))
    with pytest.raises(RegistryError, match="nosuchapp"):
        select_apps(["nosuchapp"])


def test_a_comma_separated_apps_variable_is_read_as_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APPS", ",".join(CHOSEN))
    assert Settings().apps == CHOSEN


def test_a_pinned_release_keeps_tool_metadata_identical_across_a_bundle_change(tmp_path: Path) -> None:
    before = _tool_list(tmp_path, "aaaa1111", widget_release="1.4.0")
    after = _tool_list(tmp_path, "bbbb2222", widget_release="1.4.0")
    assert before == after
    uris = _uris(before)
    assert uris
    assert all(uri.startswith("ui://widget/") and uri.endswith("-v1.4.0.html") for uri in uris)


def test_without_a_release_a_bundle_change_is_a_new_template_uri(tmp_path: Path) -> None:
    before, after = _uris(_tool_list(tmp_path, "aaaa1111")), _uris(_tool_list(tmp_path, "bbbb2222"))
    assert before
    assert after
    assert not before & after


@pytest.mark.parametrize("release", ["latest", "1.0/../x", "v1", "1." * 10 + "0"])
def test_a_release_that_is_not_a_version_is_refused(release: str) -> None:
    with pytest.raises(ValueError, match="widget_release"):
        Settings(widget_release=release)
