"""`make docs`: the site under docs/ builds in strict mode (a broken link or anchor, a page left out of the nav or an
included file that is missing fails it) with no network, its pages load nothing from elsewhere, and its API reference
documents every name `widget_mcp` and its public modules export, from its docstring."""

from __future__ import annotations

import html
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import widget_mcp
from readme_snippets import guide_pages
from repo_copy import ROOT

# A proxy on a port nothing listens on: any download the build tried (fonts, social cards, a plugin's index) fails.
NO_NETWORK = {"HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9", "NO_PROXY": ""}


def build(site: Path, config: Path = ROOT / "mkdocs.yml") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **NO_NETWORK, "NO_MKDOCS_2_WARNING": "1"}
    env.update({name.lower(): value for name, value in NO_NETWORK.items()})
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config), "--site-dir", str(site)],
        cwd=ROOT,  # the included guides (infra/README.md, …) are found from the repository's root
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("site")
    built = build(site)
    assert built.returncode == 0, f"mkdocs build --strict failed:\n{built.stdout[-3000:]}{built.stderr[-5000:]}"
    return site


def test_every_page_of_docs_is_built_into_the_site(site: Path) -> None:
    pages = [Path(page) for page in guide_pages() if page.startswith("docs/")]
    assert pages
    for page in pages:
        built = site / page.relative_to("docs").with_suffix(".html")
        assert built.is_file(), f"{page} was not built"


def test_the_sites_pages_load_no_script_style_or_font_from_elsewhere(site: Path) -> None:
    loaded = re.compile(r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=\"(?:https?:)?//[^\"]+\"")
    for page in site.rglob("*.html"):
        found = [tag for tag in loaded.findall(page.read_text()) if 'rel="canonical"' not in tag]
        assert found == [], f"{page.relative_to(site)} loads from elsewhere: {found}"
    for sheet in site.rglob("*.css"):
        assert "fonts.googleapis" not in sheet.read_text(), sheet


def test_the_api_reference_documents_every_public_name_from_its_docstring(site: Path) -> None:
    page = (site / "api.html").read_text()
    words = " ".join(re.findall(r"\w+", html.unescape(re.sub(r"<[^>]+>", " ", page))))  # as rendered, markup aside
    for name in widget_mcp.__all__:
        assert f'id="widget_mcp.{name}"' in page, f"the API reference has no entry for widget_mcp.{name}"
        value = getattr(widget_mcp, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            doc = inspect.getdoc(value)
            assert doc, f"widget_mcp.{name} has no docstring"
            first = " ".join(re.findall(r"\w+", doc)[:8])
            assert first in words, f"the API reference does not show widget_mcp.{name}'s docstring"


def test_the_api_reference_documents_every_name_of_the_public_modules(site: Path) -> None:
    page = (site / "api.html").read_text()
    record = (ROOT / "tests" / "public_api.txt").read_text(encoding="utf-8").split()
    qualified = [name for name in record if "." in name]  # `<module>.<name>`: a public module's export
    assert qualified
    for name in qualified:
        assert f'id="widget_mcp.{name}"' in page, f"the API reference has no entry for widget_mcp.{name}"


def test_a_link_to_a_page_or_an_anchor_that_does_not_exist_fails_the_build(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nSee [the settings](settings.md) and [the tutorial](#no-such-anchor).\n")
    config = (ROOT / "mkdocs.yml").read_text()
    config = re.sub(r"(?ms)^nav:.*", "nav:\n  - Home: index.md\n", config).replace(
        "docs_dir: docs", f"docs_dir: {docs}"
    )
    (tmp_path / "mkdocs.yml").write_text(config)

    built = build(tmp_path / "site", tmp_path / "mkdocs.yml")

    assert built.returncode != 0
    # Each is a warning (strict mode fails on those), not a note the build prints and carries on past.
    warned = [line for line in built.stderr.splitlines() if line.startswith("WARNING")]
    assert any("'settings.md'" in line for line in warned), built.stderr
    assert any("'#no-such-anchor'" in line for line in warned), built.stderr
