import json
from pathlib import Path

import pytest
from widget_mcp.toolkit.bundles import BundleManifest, ManifestError
from widget_mcp.toolkit.widgets import WidgetSpec, render_template

SPEC = WidgetSpec(
    name="board",
    entry="board",
    title="Board <1>",
    description="Plays chess.",
    prefers_border=False,
    connect_domains=("https://api.example.com",),
)
BASE = "https://cdn.example.com/widgets"
ORIGIN = "https://cdn.example.com"


def manifest(tmp_path: Path, js: str) -> BundleManifest:
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"entries": {"board": {"js": js, "css": ["assets/board-1.css"]}}}))
    return BundleManifest.load(path)


def test_the_template_uri_changes_when_the_bundle_does(tmp_path: Path) -> None:
    first = render_template(SPEC, base_url=BASE, origin=ORIGIN, manifest=manifest(tmp_path, "assets/board-aaa.js"))
    second = render_template(SPEC, base_url=BASE, origin=ORIGIN, manifest=manifest(tmp_path, "assets/board-bbb.js"))
    assert first.uri.startswith("ui://widget/board-")
    assert first.uri.endswith(".html")
    assert first.uri != second.uri
    assert (
        render_template(SPEC, base_url=BASE, origin=ORIGIN, manifest=manifest(tmp_path, "assets/board-aaa.js")).uri
        == first.uri
    )


def test_the_shell_loads_the_hashed_bundle_from_the_widget_base_url(tmp_path: Path) -> None:
    shell = render_template(SPEC, base_url=BASE, origin=ORIGIN, manifest=manifest(tmp_path, "assets/board-aaa.js")).html
    assert '<script type="module" src="https://cdn.example.com/widgets/assets/board-aaa.js"></script>' in shell
    assert '<link rel="stylesheet" href="https://cdn.example.com/widgets/assets/board-1.css">' in shell
    assert "<title>Board &lt;1&gt;</title>" in shell


def test_the_shell_preloads_the_chunks_the_entry_imports_so_they_load_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "manifest.json"
    entry = {"js": "assets/board-a.js", "css": [], "imports": ["assets/shared-1.js", "assets/runtime-2.js"]}
    path.write_text(json.dumps({"entries": {"board": entry}}))
    shell = render_template(SPEC, base_url=BASE, origin=ORIGIN, manifest=BundleManifest.load(path)).html
    head = shell[: shell.index("</head>")]
    assert head.endswith(
        '<link rel="modulepreload" href="https://cdn.example.com/widgets/assets/shared-1.js">'
        '<link rel="modulepreload" href="https://cdn.example.com/widgets/assets/runtime-2.js">'
    )


def test_template_meta_carries_both_dialects_with_exact_domains() -> None:
    template = render_template(SPEC, base_url=BASE, origin=ORIGIN, manifest=BundleManifest())
    assert template.meta == {
        "ui": {
            "csp": {
                "connectDomains": ["https://api.example.com", ORIGIN],
                "resourceDomains": [ORIGIN],
                "frameDomains": [],
                "baseUriDomains": [],
            },
            "prefersBorder": False,
        },
        "openai/widgetDescription": "Plays chess.",
        "openai/widgetPrefersBorder": False,
        "openai/widgetCSP": {
            "connect_domains": ["https://api.example.com", ORIGIN],
            "resource_domains": [ORIGIN],
            "frame_domains": [],
            "redirect_domains": [],
        },
    }


def test_widget_domain_is_set_only_in_the_openai_dialect_and_only_when_configured() -> None:
    template = render_template(
        SPEC, base_url=BASE, origin=ORIGIN, manifest=BundleManifest(), widget_domain="https://chess.example.com"
    )
    assert template.meta["openai/widgetDomain"] == "https://chess.example.com"
    assert "domain" not in template.meta["ui"]


def test_without_a_manifest_an_entry_falls_back_to_its_plain_name() -> None:
    assert BundleManifest.load(None).files("board").js == "board.js"


def test_a_corrupt_manifest_is_reported_with_its_path(tmp_path: Path) -> None:
    path = tmp_path / "manifest.json"
    path.write_text('{"entries": {"board": {}}}')
    with pytest.raises(ManifestError, match=r"manifest\.json: not a bundle manifest"):
        BundleManifest.load(path)
