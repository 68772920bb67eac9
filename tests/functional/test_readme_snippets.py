"""Every code block of the guide (README.md and the pages under docs/) is tested as written, or marked as one that is
not run (readme_snippets.py): the client scripts run with this virtualenv's Python and the curl lines with bash,
against the app on a loopback port; the example app is served and answers the error result the guide shows. An edit
that breaks a snippet fails here."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from readme_snippets import DEV_URL, MARKED, Block, blocks, snippets, unmarked
from repo_copy import ROOT
from servers import serve
from widget_mcp.apps import registry
from widget_mcp.local.__main__ import _state_lines
from widget_mcp.local.process import local_server
from widget_mcp.settings import Settings
from widget_mcp.storage.memory import InMemoryDocumentStore
from widget_mcp.wiring import build_app, build_core


@pytest.fixture
def base_url(settings: Settings) -> Iterator[str]:
    core = build_core(settings, concurrent=True, store=InMemoryDocumentStore())
    with serve(build_app(core)) as url:
        yield url


def _ids(found: list[Block]) -> list[str]:
    return [f"{block.path}-line-{block.line}" for block in found]


def _assert_ran(ran: subprocess.CompletedProcess[str], block: Block) -> None:
    where = block.where
    assert ran.returncode == 0, f"{where} failed:\n{ran.stdout[-2000:]}{ran.stderr[-3000:]}"
    for text in block.prints:
        assert text in ran.stdout, f"{where} did not print {text!r}:\n{ran.stdout[-3000:]}"


@pytest.mark.parametrize("path", MARKED)
def test_every_code_block_of_the_guide_is_marked_with_how_it_is_tested(path: str) -> None:
    found = blocks(path=path)
    assert unmarked(found) == [], (
        "put a marker on the line before each code block (see tests/readme_snippets.py), e.g. "
        "<!-- snippet: run python; prints … --> or <!-- snippet: not run (why) -->"
    )


def test_a_block_without_a_marker_or_with_an_unknown_one_is_named_with_its_line() -> None:
    text = "intro\n\n```sh\nmake dev\n```\n\n<!-- snippet: run perl -->\n```perl\nprint 1\n```\n"
    assert unmarked(blocks(text)) == ["README.md line 3: no marker", "README.md line 8: snippet: run perl"]


def test_the_guide_and_the_repositorys_other_guides_have_code_blocks() -> None:
    # A page may have none (the API reference); the guide as a whole has every kind the tests run, so a reader that
    # lost the pages (a moved docs/) would fail here rather than test nothing.
    kinds = {block.kind for block in blocks()}
    for kind in ("run python", "run shell", "app ", "result of ", "tested by ", "output of make dev", "tutorial: run"):
        assert any(found.startswith(kind) for found in kinds), f"the guide (README.md, docs/) has no block {kind}…"
    for path in ("infra/README.md", "bench/README.md"):
        assert blocks(path=path), f"no code blocks found in {path}"


def test_a_block_tested_elsewhere_names_a_test_module_that_reads_the_guide() -> None:
    found = [block for path in MARKED for block in blocks(path=path)]
    named = {block.kind.removeprefix("tested by ") for block in found if block.kind.startswith("tested by ")}
    for path in named:
        module = ROOT / path
        assert module.is_file(), f"the guide names {path} as the test of a block, and there is no such file"
        text = module.read_text()  # it reads the page itself, or through readme_snippets' reader of its sections
        readers = ("README.md", "docs/", "section_python(", "run_python_section(")
        assert any(reader in text for reader in readers), f"{path} does not read the guide"


@pytest.mark.parametrize("block", snippets("run python"), ids=_ids(snippets("run python")))
def test_each_python_snippet_runs_as_written_against_the_local_server(
    base_url: str, block: Block, tmp_path: Path
) -> None:
    script = tmp_path / "snippet.py"
    script.write_text(block.against(base_url))
    # sys.executable is .venv/bin/python, the command the guide gives.
    ran = subprocess.run(
        [sys.executable, script.name], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
    )
    _assert_ran(ran, block)


@pytest.mark.parametrize("block", snippets("run shell"), ids=_ids(snippets("run shell")))
def test_each_shell_snippet_runs_as_written_against_the_local_server(
    base_url: str, block: Block, tmp_path: Path
) -> None:
    ran = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", block.against(base_url)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    _assert_ran(ran, block)


async def test_the_example_app_is_served_and_answers_the_error_result_the_guide_shows(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = snippets_of_results()
    assert results, "the guide shows no result of its example app"
    for block, (app, tool, arguments) in results:
        [source] = [b for b in blocks() if b.kind == f"app {app}"]
        package = tmp_path / f"readme_{app}"
        package.mkdir(exist_ok=True)
        (package / "__init__.py").write_text(source.code)
        monkeypatch.syspath_prepend(str(tmp_path))
        # Listed in the registry, as the guide says to.
        monkeypatch.setattr(registry, "APPS", (*registry.APPS, f"readme_{app}"))
        core = build_core(settings, store=InMemoryDocumentStore())

        answered = await core.runtime.call(tool, arguments, None)

        assert answered == json.loads(block.code), block.where


def snippets_of_results() -> list[tuple[Block, tuple[str, str, dict[str, Any]]]]:
    found = []
    for block in blocks():
        if block.kind.startswith("result of "):
            app, tool, arguments = block.kind.removeprefix("result of ").split(" ", 2)
            found.append((block, (app, tool, json.loads(arguments))))
    return found


def test_the_banner_the_guide_shows_is_what_make_devs_server_prints() -> None:
    shown = [block for block in blocks() if block.kind == "output of make dev"]
    assert shown, "the guide shows no banner of make dev"
    with local_server("widget-mcp-state") as server:
        printed = "".join(server.output)
    printed = printed[printed.index("widget-mcp local mode") :].replace(server.base, DEV_URL)
    printed = re.sub(r"(AWS \(moto\)\s+http://127\.0\.0\.1:)\d+", r"\g<1>41234", printed)
    # The tests' server runs without reloads (RELOAD=0); the guide shows make dev's default, with them (and Vite's).
    with_reloads = _state_lines(True, "widgets (Vite rebuilds widget_bundles/src)")
    assert _state_lines(False, "") in printed
    for block in shown:  # the README's tour and the Quickstart both show it
        assert printed.replace(_state_lines(False, ""), with_reloads).strip() == block.code.strip(), block.where
